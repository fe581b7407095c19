#!/usr/bin/env bash
# The test command: every tier of the suite, each stage timed.
#
#   scripts/test.sh              all tiers (what CI runs, via .ci/run)
#   scripts/test.sh --coverage   the same, with the crate instrumented: a per-file line coverage
#                                table at the end, failing when the paging engine is under 90%
#                                (COVERAGE_FLOOR); CI runs this, so the suite runs once
#   scripts/test.sh --run CMD..  brings the webservers up and runs CMD instead of the tiers
#                                (the benches use it: `scripts/test.sh --run cargo bench --bench caps`)
#   scripts/test.sh ARGS..       ARGS go to the cargo build (e.g. --locked, --release); after
#                                `--`, a test-name filter for the Rust tiers (e.g. -- narrow::)
#
# The tiers:
#   offline   the unit tests and tests/offline (stand-ins, recordings): run with an empty
#             environment and a PATH holding only `kill`, so they provably need no Zoekt, Go,
#             Node or Python. This is what plain `cargo test` runs.
#   live      tests/live (`--features live`) against real zoekt-webservers this script starts:
#               fixtures/corpus            -> ZOEKT_PAGER_LIVE_URL          (hand-made, exact counts)
#               target/gen-corpus-12000    -> ZOEKT_PAGER_LIVE_BIG_URL      (scripts/gen-corpus.py, 18 shards)
#               target/gen-ties            -> ZOEKT_PAGER_LIVE_TIES_URL     (scripts/gen-ties.py: real ties)
#               target/gen-branches        -> ZOEKT_PAGER_LIVE_BRANCHES_URL (scripts/gen-branches.sh: one git
#                                                                            repository, branches main and dev)
#               the fixture index's and the tie index's shards, dealt into three folders each, one
#               webserver per folder -> ZOEKT_PAGER_LIVE_SPLIT_URLS, ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS
#             over gRPC, the pager's default; then the suites whose pages depend on how Zoekt's
#             answer is decoded (contract, exact_at_scale, tree, outline, query_syntax) again over the JSON API.
#   clients   the real binary through the TypeScript MCP SDK (stdio and HTTP), the official MCP
#             conformance suite and the MCP Inspector's CLI (tests/ts, Node 22 from npm), then the
#             Python MCP SDK walking every paged tool (tests/py, from PyPI).
#
# Ports: ZOEKT_PORT (6070), ZOEKT_BIG_PORT (6071), ZOEKT_TIES_PORT (6072), ZOEKT_BRANCHES_PORT
# (6073), ZOEKT_SPLIT_PORTS (6074,6075,6076), ZOEKT_SPLIT_TIES_PORTS (6077,6078,6079), and for
# the servers tests start themselves: ZOEKT_SPLIT_RESTART_PORT (6080, the split test's own
# restartable webserver), ZOEKT_TLS_PROXY_PORT (6081, the https test's TLS proxy).
#
# Live tests are mandatory: failing to get or start Zoekt fails this script, and a live test
# run without its variable fails. Stages that only download or build (the pinned Zoekt, the
# npm and PyPI packages, the generated corpora) run while cargo compiles.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$ROOT"

BIG_CORPUS="$ROOT/target/gen-corpus-12000"
TIES_CORPUS="$ROOT/target/gen-ties"
BRANCHES_CORPUS="$ROOT/target/gen-branches"
SMALL_PORT="${ZOEKT_PORT:-6070}"
BIG_PORT="${ZOEKT_BIG_PORT:-6071}"
TIES_PORT="${ZOEKT_TIES_PORT:-6072}"
BRANCHES_PORT="${ZOEKT_BRANCHES_PORT:-6073}"
IFS=, read -r -a SPLIT_PORTS <<<"${ZOEKT_SPLIT_PORTS:-6074,6075,6076}"
IFS=, read -r -a SPLIT_TIES_PORTS <<<"${ZOEKT_SPLIT_TIES_PORTS:-6077,6078,6079}"
ZOEKT_PAGER_LIVE_SPLIT_RESTART_PORT="${ZOEKT_SPLIT_RESTART_PORT:-6080}"
ZOEKT_PAGER_TLS_PROXY_PORT="${ZOEKT_TLS_PROXY_PORT:-6081}"
# The big corpus is cut into shards of at most this many bytes (zoekt-index -shard_limit), so
# that Zoekt's per-shard match cap (the pager's 10,000) binds in EVERY shard for `x` and the
# 100,000 total cap is passed: its six repositories of 1.22-1.29 MB become 3 shards each, 18 in
# all, each holding 13,000-31,000 lines with `x` (407,318 in all). The limit depends on
# scripts/gen-corpus.py: after changing that, check the shards again (any limit from about
# 430,000 to 505,000 gives 18 such shards; 470,000 is in the middle). 18, not 12: Zoekt hands
# shards to its workers ahead of time, so with 12 every shard is already on its way when the
# total passes 100,000 and the total cap's timing race never shows (with 18, on 2 CPUs, 11-14
# of them are searched, varying from call to call).
BIG_SHARD_LIMIT=470000
# The HTTP tests open 2,000 idle connections at once: lift the soft file limit to the hard one
# (a no-op where it is already high enough).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# Indexing settings are given per server below, never inherited from the caller.
unset ZOEKT_SHARD_LIMIT ZOEKT_GIT_BRANCHES

say() { printf 'test.sh: %s\n' "$*" >&2; }
for tool in cargo python3 curl git; do
  command -v "$tool" >/dev/null || { say "$tool is missing: install it first (see README, Quick start)"; exit 1; }
done

# ---- arguments ----
mode=tiers coverage=0
cargo_args=() filter_args=() run_cmd=()
while [ $# -gt 0 ]; do
  case "$1" in
    --coverage) coverage=1 ;;
    --run) shift; mode=run; run_cmd=("$@"); break ;;
    --) shift; filter_args=("$@"); break ;;
    *) cargo_args+=("$1") ;;
  esac
  shift
done

# ---- stage timing: each stage's seconds, printed as it ends and as a table at the end ----
STARTED=$SECONDS
stage_names=() stage_secs=()
stage_begin() { STAGE="$1" STAGE_T0=$SECONDS; say "== $STAGE"; }
stage_end() {
  stage_names+=("$STAGE"); stage_secs+=("$((SECONDS - STAGE_T0))")
  say "== $STAGE: $((SECONDS - STAGE_T0)) s"
}
summary() {
  local i
  say "stage times:"
  for i in "${!stage_names[@]}"; do printf 'test.sh:   %5s s  %s\n' "${stage_secs[$i]}" "${stage_names[$i]}" >&2; done
  say "total: $((SECONDS - STARTED)) s"
}

zoekt() { # zoekt NAME PORT ARGS...: scripts/zoekt.sh with that server's port and state folder
  local name="$1" port="$2"; shift 2
  ZOEKT_PORT="$port" ZOEKT_STATE_DIR="$ROOT/.zoekt/$name" scripts/zoekt.sh "$@"
}

servers() { # every webserver this script starts: NAME PORT, one a line
  printf '%s %s\n' small "$SMALL_PORT" big "$BIG_PORT" ties "$TIES_PORT" branches "$BRANCHES_PORT"
  local i
  for i in 0 1 2; do
    printf '%s %s\n' "split/$i" "${SPLIT_PORTS[$i]}" "split-ties/$i" "${SPLIT_TIES_PORTS[$i]}"
  done
}

background=()
stop_all() {
  local name port pid
  for pid in ${background[@]+"${background[@]}"}; do kill "$pid" 2>/dev/null || true; done
  while read -r name port; do zoekt "$name" "$port" down >/dev/null 2>&1 || true; done < <(servers)
}
trap stop_all EXIT

# split NAME INDEX PORT PORT PORT: deals the shards of INDEX (sorted by name) into three index
# folders, .zoekt/NAME/{0,1,2}/shards, serves each on its port, and prints the three URLs
# comma-separated. Shards are hard links (copies where links fail): the index stays as it is.
split() {
  local name="$1" index="$2"; shift 2
  local ports=("$@") i=0 shard urls=()
  for i in 0 1 2; do rm -rf "$ROOT/.zoekt/$name/$i/shards"; mkdir -p "$ROOT/.zoekt/$name/$i/shards"; done
  i=0
  for shard in $(ls "$index" | grep '\.zoekt$' | sort); do
    ln "$index/$shard" "$ROOT/.zoekt/$name/$((i % 3))/shards/" 2>/dev/null \
      || cp "$index/$shard" "$ROOT/.zoekt/$name/$((i % 3))/shards/"
    i=$((i + 1))
  done
  [ "$i" -ge 3 ] || { say "$index has $i shards: too few to split over three webservers"; exit 1; }
  for i in 0 1 2; do
    urls+=("$(zoekt "$name/$i" "${ports[$i]}" serve "$ROOT/.zoekt/$name/$i/shards")")
  done
  (IFS=,; echo "${urls[*]}")
}

# ---- what does not need cargo: in the background while the build runs ----
# prepare NAME CMD...: runs CMD in the background, its output in target/test-logs/NAME.log.
mkdir -p "$ROOT/target/test-logs"
prepare() {
  local name="$1"; shift
  # The step runs in a subshell of its own, still under `set -e`, and its status is written
  # whatever it is: a failing step ended the writer too (the `set -e` it inherited), so no
  # .rc was written and `await` waited for it forever (Zoekt's install without ../shared).
  (set +e; (set -e; "$@") >"$ROOT/target/test-logs/$name.log" 2>&1; echo $? >"$ROOT/target/test-logs/$name.rc") &
  background+=("$!")
}
# await NAME: waits for a prepare step, prints its log, and stops on its failure.
await() {
  local name="$1" rc
  while [ ! -f "$ROOT/target/test-logs/$name.rc" ]; do sleep 1; done
  rc="$(cat "$ROOT/target/test-logs/$name.rc")"
  sed 's/^/  /' "$ROOT/target/test-logs/$name.log" | grep -v 'TAR_ENTRY_ERROR' >&2 || true
  [ "$rc" = 0 ] || { say "$name failed (rc $rc): see target/test-logs/$name.log"; exit 1; }
}
generate_all() {
  # Generated corpora are deterministic and made once (scripts/generate.sh keeps a stamp).
  scripts/generate.sh scripts/gen-corpus.py "$BIG_CORPUS" --files 12000
  scripts/generate.sh scripts/gen-ties.py "$TIES_CORPUS"
  scripts/generate.sh scripts/gen-branches.sh "$BRANCHES_CORPUS"
}
rm -f "$ROOT"/target/test-logs/*.rc
stage_begin "prepare: the pinned Zoekt, generated corpora, npm and PyPI packages (in the background), and the test build"
prepare zoekt scripts/zoekt.sh install
prepare corpora generate_all
if [ "$mode" = tiers ]; then
  prepare npm scripts/ts-deps.sh
  prepare pypi scripts/py-deps.sh
fi

# ---- the build ----
# Coverage: only this crate's own code is instrumented (a workspace wrapper adds the flag;
# dependencies build as usual), in a target folder of its own so that it never evicts the
# normal build, and every process it starts (the tests, the server binary they spawn, the
# Node and Python clients' server) writes a profile.
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
if [ "$coverage" = 1 ]; then
  llvm_bin="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
  [ -x "$llvm_bin/llvm-profdata" ] && [ -x "$llvm_bin/llvm-cov" ] || {
    say "--coverage needs the llvm-tools component: rustup component add llvm-tools"; exit 1; }
  export CARGO_TARGET_DIR="$target_dir/coverage"
  target_dir="$CARGO_TARGET_DIR"
  export RUSTC_WORKSPACE_WRAPPER="$ROOT/scripts/coverage-rustc.sh"
  profiles="$target_dir/profiles"
  rm -rf "$profiles"; mkdir -p "$profiles"
  # %4m: each binary merges its profiles into a pool of four files as it exits (hundreds of
  # server processes would otherwise write a file each).
  export LLVM_PROFILE_FILE="$profiles/%4m.profraw"
fi
if [ "$mode" = tiers ]; then
build_json="$(mktemp)"
cargo test --features live --no-run --message-format=json-render-diagnostics \
  ${cargo_args[@]+"${cargo_args[@]}"} >"$build_json"
# The test executables cargo built, by target name; and the server binary.
executables="$(python3 - "$build_json" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        t = m["target"]
        kind = "bin" if not m["profile"]["test"] else ("lib" if "lib" in t["kind"] else t["name"])
        print(kind, m["executable"])
PY
)"
rm -f "$build_json"
exe() { awk -v k="$1" '$1 == k {print $2}' <<<"$executables"; }
lib_tests="$(exe lib)" offline_tests="$(exe offline)" live_tests="$(exe live)" server_bin="$(exe bin)"
for e in "$lib_tests" "$offline_tests" "$live_tests" "$server_bin"; do
  [ -n "$e" ] && [ -x "$e" ] || { say "the build did not make every test binary:"; echo "$executables" >&2; exit 1; }
done
fi
stage_end

# ---- offline tier: nothing installed but the binaries themselves ----
if [ "$mode" = tiers ]; then
  stage_begin "offline tier: unit tests and tests/offline, with an empty environment (no Zoekt, Go, Node or Python on PATH)"
  bare="$(mktemp -d)"
  ln -s "$(type -P kill)" "$bare/kill"
  for t in "$lib_tests" "$offline_tests"; do
    env -i HOME="$HOME" PATH="$bare" ${LLVM_PROFILE_FILE:+LLVM_PROFILE_FILE="$LLVM_PROFILE_FILE"} \
      "$t" ${filter_args[@]+"${filter_args[@]}"}
  done
  rm -rf "$bare"
  stage_end
fi

# ---- the webservers ----
stage_begin "webservers: index the corpora and serve them"
await zoekt
await corpora
ZOEKT_PAGER_LIVE_URL="$(zoekt small "$SMALL_PORT" up fixtures/corpus)"
ZOEKT_PAGER_LIVE_BIG_URL="$(ZOEKT_SHARD_LIMIT="$BIG_SHARD_LIMIT" zoekt big "$BIG_PORT" up "$BIG_CORPUS")"
ZOEKT_PAGER_LIVE_TIES_URL="$(zoekt ties "$TIES_PORT" up "$TIES_CORPUS")"
ZOEKT_PAGER_LIVE_BRANCHES_URL="$(ZOEKT_GIT_BRANCHES=main,dev zoekt branches "$BRANCHES_PORT" up "$BRANCHES_CORPUS")"
# For the tests that stop and restart their own webserver: the fixture index, and the
# generated corpus cut into 733 small shards (the most loading work at a start that a test
# run can afford: about 8 s to index, under a second to load on 2 CPUs).
paths="$(zoekt small "$SMALL_PORT" paths)"
ZOEKT_PAGER_LIVE_WEBSERVER="$(sed -n 1p <<<"$paths")"
ZOEKT_PAGER_LIVE_INDEX_DIR="$(sed -n 2p <<<"$paths")"
ZOEKT_PAGER_LIVE_MANY_SHARDS_INDEX_DIR="$(ZOEKT_SHARD_LIMIT=10000 zoekt many-shards 0 index "$BIG_CORPUS")"
# One index partitioned over three webservers, against the one webserver holding it all.
ZOEKT_PAGER_LIVE_SPLIT_URLS="$(split split "$ZOEKT_PAGER_LIVE_INDEX_DIR" "${SPLIT_PORTS[@]}")"
ZOEKT_PAGER_LIVE_SPLIT_INDEX_DIR="$ROOT/.zoekt/split/2/shards"
ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS="$(split split-ties "$ROOT/.zoekt/ties/index" "${SPLIT_TIES_PORTS[@]}")"
# Every webserver's process id, for the fan-out bench, which runs them all on one CPU and
# itself on the others for one of its tables.
ZOEKT_PAGER_LIVE_WEBSERVER_PIDS="$(
  while read -r name port; do zoekt "$name" "$port" pid || exit 1; done < <(servers) | paste -sd,
)"
export ZOEKT_PAGER_LIVE_URL ZOEKT_PAGER_LIVE_BIG_URL ZOEKT_PAGER_LIVE_TIES_URL \
  ZOEKT_PAGER_LIVE_BRANCHES_URL ZOEKT_PAGER_LIVE_WEBSERVER ZOEKT_PAGER_LIVE_INDEX_DIR \
  ZOEKT_PAGER_LIVE_MANY_SHARDS_INDEX_DIR ZOEKT_PAGER_LIVE_SPLIT_URLS ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS \
  ZOEKT_PAGER_LIVE_SPLIT_INDEX_DIR ZOEKT_PAGER_LIVE_SPLIT_RESTART_PORT ZOEKT_PAGER_TLS_PROXY_PORT \
  ZOEKT_PAGER_LIVE_WEBSERVER_PIDS
say "split over three webservers: $ZOEKT_PAGER_LIVE_SPLIT_URLS (fixtures), $ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS (ties)"
say "live Zoekt: $ZOEKT_PAGER_LIVE_URL (fixtures), $ZOEKT_PAGER_LIVE_BIG_URL (12,000 files)," \
  "$ZOEKT_PAGER_LIVE_TIES_URL (ties), $ZOEKT_PAGER_LIVE_BRANCHES_URL (branches main, dev)"
stage_end

if [ "$mode" = run ]; then
  "${run_cmd[@]}"
  exit $?
fi

# ---- live tier ----
stage_begin "live tier: tests/live over gRPC (the default transport)"
ZOEKT_TEST_TRANSPORT=grpc "$live_tests" ${filter_args[@]+"${filter_args[@]}"}
stage_end

# The suites whose pages depend on how Zoekt's answer is decoded, again over the JSON API:
# every page of the contract's walks equal to raw Zoekt's answer, walks past Zoekt's
# budgets on 12,000 files, the tree and outline tools (a listing of names, one file named
# exactly), and the query syntax `search`'s help gives (over gRPC its escaped words go to
# the JSON API by design; here they go there directly). (Both APIs' answers are compared
# field for field, ties included, and the search tools' walks page for page, fan-out
# included, by the grpc module itself.)
stage_begin "live tier again over JSON: the contract, exact_at_scale, tree, outline and query syntax suites"
if [ ${#filter_args[@]} -eq 0 ]; then
  ZOEKT_TEST_TRANSPORT=json "$live_tests" contract:: exact_at_scale:: tree:: outline:: query_syntax::
else
  ZOEKT_TEST_TRANSPORT=json "$live_tests" "${filter_args[@]}"
fi
stage_end

# ---- real clients ----
stage_begin "clients: TypeScript SDK (stdio, HTTP), MCP conformance suite, MCP Inspector CLI (tests/ts)"
await npm
(cd tests/ts && ZOEKT_PAGER_BIN="$server_bin" \
  node_modules/.bin/node --test --test-reporter=spec --test-concurrency=1 \
  sdk-client.test.mjs conformance.test.mjs inspector.test.mjs)
stage_end

stage_begin "clients: the Python SDK walks every paged tool (tests/py)"
await pypi
"$(scripts/py-deps.sh)" tests/py/walk_with_python_sdk.py "$server_bin" "$ZOEKT_PAGER_LIVE_URL"
stage_end

# ---- coverage ----
if [ "$coverage" = 1 ]; then
  stage_begin "coverage: line coverage of every file, the paging engine against its floor"
  stop_all
  "$llvm_bin/llvm-profdata" merge -sparse "$profiles"/*.profraw -o "$profiles/merged.profdata"
  objects=()
  for e in "$lib_tests" "$offline_tests" "$live_tests" "$server_bin"; do objects+=(-object "$e"); done
  "$llvm_bin/llvm-cov" export -summary-only -instr-profile="$profiles/merged.profdata" \
    -ignore-filename-regex='/(\.cargo|rustc|tests)/' "${objects[@]}" >"$target_dir/coverage.json"
  python3 scripts/coverage-report.py "$target_dir/coverage.json" "$ROOT" "${COVERAGE_FLOOR:-90}"
  stage_end
fi
summary
