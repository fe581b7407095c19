#!/usr/bin/env bash
# Quick start: gets the pinned Zoekt (go install, or a build from its source archive when the
# Go module proxy refuses it; see scripts/zoekt.sh), brings it up on fixtures/corpus and walks
# every page of a symbol search with the CLI (100 symbols, limit 30: pages of 30+30+30+10),
# then shows one page of each other tool. Extra arguments replace the corpus:
# scripts/demo.sh /path/to/folder-of-repos
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CORPUS="${1:-fixtures/corpus}"
export ZOEKT_STATE_DIR="$ROOT/.zoekt/demo" ZOEKT_PORT="${ZOEKT_PORT:-6070}"
trap 'scripts/zoekt.sh down || true' EXIT

say() { printf 'demo.sh: %s\n' "$*" >&2; }
# cargo prints nothing while it compiles one big crate: say every 20 s that it still runs.
ticking() {
  local what="$1" t0=$SECONDS rc=0 ticker
  shift
  (while sleep 20; do say "still $what ($((SECONDS - t0)) s)"; done) >&2 &
  ticker=$!
  "$@" || rc=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  return "$rc"
}

say "step 1 of 3: building zoekt-pager (release; the first time 3 to 6 minutes, then seconds)"
ticking "building zoekt-pager" cargo build --release --bin zoekt-pager
say "step 2 of 3: getting Zoekt and indexing $CORPUS (the first time 2 to 5 minutes to build Zoekt, then seconds)"
URL="$(scripts/zoekt.sh up "$CORPUS")"
say "step 3 of 3: walking pages against $URL"
export ZOEKT_URL="$URL"
BIN="${CARGO_TARGET_DIR:-target}/release/zoekt-pager"

echo "== search_symbols 'pagerItem\d+' --limit 30 --all   (Zoekt at $URL)"
"$BIN" search_symbols 'pagerItem\d+' --limit 30 --all
echo; echo "== search_files widgetry"; "$BIN" search_files widgetry
echo; echo "== find_references get --limit 8"; "$BIN" find_references get --limit 8
echo; echo "== search pagerLineMark --limit 5 --context-lines 1"; "$BIN" search pagerLineMark --limit 5 --context-lines 1
echo; echo "== files_with_matches pagerLineMark --limit 5"; "$BIN" files_with_matches pagerLineMark --limit 5
echo; echo "== list_repos"; "$BIN" list_repos
