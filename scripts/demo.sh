#!/usr/bin/env bash
# Quick start: brings a real Zoekt up on fixtures/corpus and walks every page of a symbol
# search with the CLI (100 symbols, limit 30: pages of 30+30+30+10), then shows one page of
# each other tool. Extra arguments replace the corpus: scripts/demo.sh /path/to/repos
#
# Where the Go module proxy refuses to serve Zoekt (scripts/zoekt.sh exit 4), it says so and,
# only with ZOEKT_PAGER_DEMO_MODEL=1, falls back to the test model of Zoekt instead.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CORPUS="${1:-fixtures/corpus}"
export ZOEKT_STATE_DIR="$ROOT/.zoekt/demo"
MODEL_PID=""
cleanup() { scripts/zoekt.sh down || true; [ -n "$MODEL_PID" ] && kill "$MODEL_PID" 2>/dev/null || true; }
trap cleanup EXIT

cargo build --quiet --release --bin zoekt-pager
set +e
URL="$(scripts/zoekt.sh up "$CORPUS")"
rc=$?
set -e
if [ "$rc" -eq 4 ] && [ "${ZOEKT_PAGER_DEMO_MODEL:-}" = 1 ]; then
  echo ">>> No real Zoekt can be installed here: using the Zoekt MODEL from tests/support instead." >&2
  cargo build --quiet --example zoekt_model
  "${CARGO_TARGET_DIR:-target}/debug/examples/zoekt_model" "$CORPUS" "${ZOEKT_PORT:-6070}" >/dev/null &
  MODEL_PID=$!
  URL="http://127.0.0.1:${ZOEKT_PORT:-6070}"
  for _ in $(seq 100); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.1; done
elif [ "$rc" -ne 0 ]; then
  [ "$rc" -eq 4 ] && echo ">>> Set ZOEKT_PAGER_DEMO_MODEL=1 to run the demo on the test model of Zoekt." >&2
  exit "$rc"
fi
export ZOEKT_URL="$URL"
BIN="${CARGO_TARGET_DIR:-target}/release/zoekt-pager"

echo "== search_symbols 'pagerItem\d+' --limit 30 --all"
"$BIN" symbols 'pagerItem\d+' --limit 30 --all
echo; echo "== search_files widgetry"; "$BIN" files widgetry
echo; echo "== find_references get --limit 8"; "$BIN" refs get --limit 8
echo; echo "== search pagerLineMark --limit 5 --context 1"; "$BIN" search pagerLineMark --limit 5 --context 1
echo; echo "== list_repos"; "$BIN" repos
