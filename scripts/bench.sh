#!/usr/bin/env bash
# The benchmark command: what the window cache is worth against a real Zoekt (benches/walk/).
# Generates the 12,000-file corpus (scripts/gen-corpus.py, skipped when its stamp is current),
# gets the pinned Zoekt (scripts/zoekt.sh install), brings up ONE zoekt-webserver on that corpus
# in 18 shards, builds the release binary, runs `cargo bench --bench walk` against them, and
# brings the webserver down again, also on failure.
#
#   target/gen-corpus-12000 -> ZOEKT_PAGER_LIVE_BIG_URL, port ZOEKT_BIG_PORT (default 6081),
#                              state (index, log, pid) in .zoekt/bench
#
# Its own port and state folder: scripts/test.sh's servers (6070-6073, .zoekt/{small,big,...})
# may be running and are left alone.
#
# Writes docs/bench/walk.md (the tables it prints), docs/bench/walk.svg (latency by page depth)
# and target/bench-walk.json (every raw number). Prints timings, asserts none. About 7
# minutes on 2 CPUs once Zoekt is built (11 when the release and bench builds compile anew).
#
# Extra arguments go to `cargo build --release` and `cargo bench` (e.g. --locked).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BIG_CORPUS="$ROOT/target/gen-corpus-12000"
BIG_PORT="${ZOEKT_BIG_PORT:-6081}"
# As in scripts/test.sh (see there why): 470,000 bytes per shard cut the corpus into 18 shards.
BIG_SHARD_LIMIT=470000
unset ZOEKT_SHARD_LIMIT ZOEKT_GIT_BRANCHES

say() { printf 'bench.sh: %s\n' "$*" >&2; }
for tool in cargo python3 curl git; do
  command -v "$tool" >/dev/null || { say "$tool is missing: install it first (see README, Quick start)"; exit 1; }
done
started=$SECONDS

zoekt() { # zoekt ARGS...: scripts/zoekt.sh with the bench server's port and state folder
  ZOEKT_PORT="$BIG_PORT" ZOEKT_STATE_DIR="$ROOT/.zoekt/bench" scripts/zoekt.sh "$@"
}
trap 'zoekt down || true' EXIT

# The same corpus as scripts/test.sh, made once (scripts/generate.sh keeps a stamp).
scripts/generate.sh scripts/gen-corpus.py "$BIG_CORPUS" --files 12000

scripts/zoekt.sh install
ZOEKT_PAGER_LIVE_BIG_URL="$(ZOEKT_SHARD_LIMIT="$BIG_SHARD_LIMIT" zoekt up "$BIG_CORPUS")"
export ZOEKT_PAGER_LIVE_BIG_URL
shards="$(find "$ROOT/.zoekt/bench/index" -name '*.zoekt' | wc -l)"
say "live Zoekt: $ZOEKT_PAGER_LIVE_BIG_URL (12,000 files, $shards shards)"

# The server the bench spawns: this release build, as a user installs it. Copied aside, because
# `cargo bench` then rebuilds target/release/zoekt-pager with the features the
# dev-dependencies turn on in crates it shares with them (tokio's `test-util`, hyper's client).
cargo build --release "$@"
mkdir -p "$ROOT/target/bench-walk"
cp "$ROOT/target/release/zoekt-pager" "$ROOT/target/bench-walk/zoekt-pager"
export ZOEKT_PAGER_BIN="$ROOT/target/bench-walk/zoekt-pager"
cargo bench --bench walk "$@"
say "done in $((SECONDS - started)) s: docs/bench/walk.md, docs/bench/walk.svg, target/bench-walk.json"
