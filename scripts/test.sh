#!/usr/bin/env bash
# The test command. Gets the pinned Zoekt (scripts/zoekt.sh install: go install, or a build from
# the source archive), brings up one real zoekt-webserver per test corpus, runs every test
# against them, and brings them down again, also on failure.
#
#   fixtures/corpus            -> ZOEKT_PAGER_LIVE_URL          (hand-made, exact counts)
#   target/gen-corpus-12000    -> ZOEKT_PAGER_LIVE_BIG_URL      (scripts/gen-corpus.py, 18 shards)
#   target/gen-ties            -> ZOEKT_PAGER_LIVE_TIES_URL     (scripts/gen-ties.py: real ties)
#   target/gen-branches        -> ZOEKT_PAGER_LIVE_BRANCHES_URL (scripts/gen-branches.sh: one git
#                                                                repository, branches main and dev)
#
#   the fixture index's and the tie index's shards, dealt into three folders each, one
#   webserver per folder -> ZOEKT_PAGER_LIVE_SPLIT_URLS, ZOEKT_PAGER_LIVE_SPLIT_TIES_URLS
#                           (comma-separated: one index partitioned over several webservers)
#
# Ports: ZOEKT_PORT (6070), ZOEKT_BIG_PORT (6071), ZOEKT_TIES_PORT (6072), ZOEKT_BRANCHES_PORT
# (6073), ZOEKT_SPLIT_PORTS (6074,6075,6076), ZOEKT_SPLIT_TIES_PORTS (6077,6078,6079), and for
# the servers tests start themselves: ZOEKT_SPLIT_RESTART_PORT (6080, the split test's own
# restartable webserver), ZOEKT_TLS_PROXY_PORT (6081, the https test's TLS proxy).
#
# Live tests are mandatory: failing to get or start Zoekt fails this script, and a live test
# run without its variable fails. Only the replay and unit tests need no Zoekt and no Go:
# `cargo test --lib --test replay`.
#
# Then the Node tests in tests/ts, against the same fixture Zoekt: the real binary through the
# TypeScript MCP SDK's client (stdio and HTTP), the official MCP conformance suite against
# the sidecar, and the MCP Inspector's CLI calling every tool. Their npm packages, Node 22 included, come from scripts/ts-deps.sh (npm ci from
# tests/ts/package-lock.json; a no-op once done). Then the Python SDK's client walks every paged
# tool (tests/py; its packages from scripts/py-deps.sh, a pinned virtual environment).
#
# Extra arguments go to `cargo test` (e.g. --locked, or a test name filter after --).
# `scripts/test.sh --run CMD ARGS...` runs CMD instead of `cargo test`, with the same servers
# up (scripts/coverage.sh and scripts/mutants.sh use it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
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

stop_all() {
  local name port
  while read -r name port; do zoekt "$name" "$port" down || true; done < <(servers)
}

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
trap stop_all EXIT

# Generated corpora are deterministic and made once (scripts/generate.sh keeps a stamp).
scripts/generate.sh scripts/gen-corpus.py "$BIG_CORPUS" --files 12000
scripts/generate.sh scripts/gen-ties.py "$TIES_CORPUS"
scripts/generate.sh scripts/gen-branches.sh "$BRANCHES_CORPUS"

scripts/zoekt.sh install
[ "${1:-}" = --run ] || scripts/ts-deps.sh
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

if [ "${1:-}" = --run ]; then
  shift
  "$@"
else
  cargo test --all-targets "$@"
  # The suites whose subject is what pages hold, again over Zoekt's gRPC API (the run above
  # searched over JSON, the default): the same checks for both transports.
  say "contract, ties, exact-at-scale and fan-out suites again over gRPC (ZOEKT_TEST_TRANSPORT=grpc)"
  # (cargo's own arguments, then `--` and the test filter's, as given.)
  cargo_args=() filter_args=() after=0
  for arg in "$@"; do
    if [ "$after" = 0 ] && [ "$arg" = -- ]; then after=1
    elif [ "$after" = 0 ]; then cargo_args+=("$arg")
    else filter_args+=("$arg"); fi
  done
  ZOEKT_TEST_TRANSPORT=grpc cargo test ${cargo_args[@]+"${cargo_args[@]}"} \
    --test contract --test ties --test exact_at_scale --test fanout -- ${filter_args[@]+"${filter_args[@]}"}
  # The binary `cargo test` just built (the debug one, unless the arguments asked for another).
  profile=debug
  for arg in "$@"; do if [ "$arg" = --release ]; then profile=release; fi; done
  target_dir="$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  say "Node tests (tests/ts): the TypeScript SDK client, the MCP conformance suite, the MCP Inspector CLI"
  (cd tests/ts && ZOEKT_PAGER_BIN="$target_dir/$profile/zoekt-pager" \
    node_modules/.bin/node --test --test-reporter=spec --test-concurrency=1 \
    sdk-client.test.mjs conformance.test.mjs inspector.test.mjs)
  say "Python SDK test (tests/py): every paged tool walked with the SDK's schema checks"
  "$(scripts/py-deps.sh)" tests/py/walk_with_python_sdk.py \
    "$target_dir/$profile/zoekt-pager" "$ZOEKT_PAGER_LIVE_URL"
fi
