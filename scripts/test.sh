#!/usr/bin/env bash
# The test command: brings a real Zoekt up on fixtures/corpus (and a second one on the
# generated 12,000-file corpus), runs every test against it and against the Zoekt model,
# and brings Zoekt down again, also on failure.
#
# Live tests read ZOEKT_PAGER_LIVE_URL / ZOEKT_PAGER_LIVE_BIG_URL. When the Go module proxy
# refuses to serve Zoekt (scripts/zoekt.sh exit 4), the reason is passed to the tests in
# ZOEKT_PAGER_LIVE_BLOCKED and every live test prints a loud NOT RUN line; any other failure
# to bring Zoekt up fails the run when CI=true.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BIG_CORPUS="$ROOT/target/gen-corpus-12000"
SMALL_PORT="${ZOEKT_PORT:-6070}"
BIG_PORT="${ZOEKT_BIG_PORT:-6071}"

banner() { printf '\n################################################################\n# %s\n################################################################\n\n' "$*" >&2; }

stop_all() {
  ZOEKT_PORT="$SMALL_PORT" ZOEKT_STATE_DIR="$ROOT/.zoekt/small" scripts/zoekt.sh down || true
  ZOEKT_PORT="$BIG_PORT" ZOEKT_STATE_DIR="$ROOT/.zoekt/big" scripts/zoekt.sh down || true
}
trap stop_all EXIT

# ctags is needed by the Zoekt model too, whatever happens to Zoekt itself.
scripts/zoekt.sh ctags

if [ ! -f "$BIG_CORPUS/.done" ]; then
  rm -rf "$BIG_CORPUS"
  python3 scripts/gen-corpus.py "$BIG_CORPUS" --files 12000 >&2
  touch "$BIG_CORPUS/.done"
fi

set +e
scripts/zoekt.sh install
rc=$?
set -e
if [ "$rc" -eq 4 ]; then
  export ZOEKT_PAGER_LIVE_BLOCKED="the Go module proxy refuses github.com/sourcegraph/zoekt (HTTP 403), so no real Zoekt can be installed on this machine"
  banner "LIVE ZOEKT TESTS WILL NOT RUN: $ZOEKT_PAGER_LIVE_BLOCKED"
elif [ "$rc" -ne 0 ]; then
  banner "Zoekt could not be installed (exit $rc)"
  [ "${CI:-}" = "true" ] && exit 1
else
  ZOEKT_PAGER_LIVE_URL="$(ZOEKT_PORT="$SMALL_PORT" ZOEKT_STATE_DIR="$ROOT/.zoekt/small" scripts/zoekt.sh up fixtures/corpus)"
  ZOEKT_PAGER_LIVE_BIG_URL="$(ZOEKT_PORT="$BIG_PORT" ZOEKT_STATE_DIR="$ROOT/.zoekt/big" scripts/zoekt.sh up "$BIG_CORPUS")"
  # For the test that stops and restarts its own webserver on the fixture index.
  read -r ZOEKT_PAGER_LIVE_WEBSERVER ZOEKT_PAGER_LIVE_INDEX_DIR \
    < <(ZOEKT_STATE_DIR="$ROOT/.zoekt/small" scripts/zoekt.sh paths)
  export ZOEKT_PAGER_LIVE_URL ZOEKT_PAGER_LIVE_BIG_URL ZOEKT_PAGER_LIVE_WEBSERVER ZOEKT_PAGER_LIVE_INDEX_DIR
  banner "Live Zoekt: $ZOEKT_PAGER_LIVE_URL (fixtures), $ZOEKT_PAGER_LIVE_BIG_URL (12,000 files)"
fi

cargo test --all-targets "$@"
