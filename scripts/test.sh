#!/usr/bin/env bash
# The test command. Gets the pinned Zoekt (scripts/zoekt.sh install: go install, or a build from
# the source archive), brings up one real zoekt-webserver per test corpus, runs every test
# against them, and brings them down again, also on failure.
#
#   fixtures/corpus            -> ZOEKT_PAGER_LIVE_URL       (hand-made, exact counts)
#   target/gen-corpus-12000    -> ZOEKT_PAGER_LIVE_BIG_URL   (scripts/gen-corpus.py)
#   target/gen-ties            -> ZOEKT_PAGER_LIVE_TIES_URL  (scripts/gen-ties.py: real ties)
#
# Live tests are mandatory: failing to get or start Zoekt fails this script, and a live test
# run without its variable fails. Only the replay and unit tests need no Zoekt and no Go:
# `cargo test --lib --test replay`.
#
# Extra arguments go to `cargo test` (e.g. --locked, or a test name filter after --).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BIG_CORPUS="$ROOT/target/gen-corpus-12000"
TIES_CORPUS="$ROOT/target/gen-ties"
SMALL_PORT="${ZOEKT_PORT:-6070}"
BIG_PORT="${ZOEKT_BIG_PORT:-6071}"
TIES_PORT="${ZOEKT_TIES_PORT:-6072}"

say() { printf 'test.sh: %s\n' "$*" >&2; }
for tool in cargo python3 curl; do
  command -v "$tool" >/dev/null || { say "$tool is missing: install it first (see README, Quick start)"; exit 1; }
done

zoekt() { # zoekt NAME PORT ARGS...: scripts/zoekt.sh with that server's port and state folder
  local name="$1" port="$2"; shift 2
  ZOEKT_PORT="$port" ZOEKT_STATE_DIR="$ROOT/.zoekt/$name" scripts/zoekt.sh "$@"
}

stop_all() {
  zoekt small "$SMALL_PORT" down || true
  zoekt big "$BIG_PORT" down || true
  zoekt ties "$TIES_PORT" down || true
}
trap stop_all EXIT

# Generated corpora are deterministic; a stamp holds the generator's checksum, so a change to
# the generator regenerates them.
generate() { # generate SCRIPT OUT ARGS...
  local script="$1" out="$2"; shift 2
  local stamp; stamp="$(sha256sum "$script" | cut -d' ' -f1) $*"
  if [ "$(cat "$out/.done" 2>/dev/null || true)" != "$stamp" ]; then
    rm -rf "$out"
    python3 "$script" "$out" "$@" >&2
    printf '%s' "$stamp" >"$out/.done"
  fi
}
generate scripts/gen-corpus.py "$BIG_CORPUS" --files 12000
generate scripts/gen-ties.py "$TIES_CORPUS"

scripts/zoekt.sh install
ZOEKT_PAGER_LIVE_URL="$(zoekt small "$SMALL_PORT" up fixtures/corpus)"
ZOEKT_PAGER_LIVE_BIG_URL="$(zoekt big "$BIG_PORT" up "$BIG_CORPUS")"
ZOEKT_PAGER_LIVE_TIES_URL="$(zoekt ties "$TIES_PORT" up "$TIES_CORPUS")"
# For the test that stops and restarts its own webserver on the fixture index.
paths="$(zoekt small "$SMALL_PORT" paths)"
ZOEKT_PAGER_LIVE_WEBSERVER="$(sed -n 1p <<<"$paths")"
ZOEKT_PAGER_LIVE_INDEX_DIR="$(sed -n 2p <<<"$paths")"
export ZOEKT_PAGER_LIVE_URL ZOEKT_PAGER_LIVE_BIG_URL ZOEKT_PAGER_LIVE_TIES_URL \
  ZOEKT_PAGER_LIVE_WEBSERVER ZOEKT_PAGER_LIVE_INDEX_DIR
say "live Zoekt: $ZOEKT_PAGER_LIVE_URL (fixtures), $ZOEKT_PAGER_LIVE_BIG_URL (12,000 files), $ZOEKT_PAGER_LIVE_TIES_URL (ties)"

cargo test --all-targets "$@"
