#!/usr/bin/env bash
# Re-records every scenario in fixtures/scenarios, in one command.
#
#   scripts/record.sh           the pinned real Zoekt on fixtures/corpus -> fixtures/recordings/zoekt
#   scripts/record.sh --model   the test model of Zoekt (NOT Zoekt)       -> fixtures/recordings/model
#
# Old recordings of that source are replaced; review the diff (`git diff fixtures/recordings`):
# exchanges may move (Zoekt orders tied files differently from run to run) but a golden
# (a `results` entry) that changes is a behaviour change to explain.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

cargo build --quiet --release --bin zoekt-pager
PAGER="$ROOT/target/release/zoekt-pager"
# The recordings hold the engine's settings: record with the defaults, not this shell's.
for v in $(env | grep -o '^ZOEKT_PAGER_[A-Z_]*' | grep -v '^ZOEKT_PAGER_LOG' || true); do unset "$v"; done

if [ "${1:-}" = "--model" ]; then
  OUT=fixtures/recordings/model
  PORT="${ZOEKT_MODEL_PORT:-16080}"
  cargo build --quiet --example zoekt_model
  target/debug/examples/zoekt_model fixtures/corpus "$PORT" >/dev/null &
  MODEL_PID=$!
  trap 'kill $MODEL_PID 2>/dev/null || true' EXIT
  URL="http://127.0.0.1:$PORT"
  for _ in $(seq 1 100); do curl -sf "$URL/readyz" >/dev/null && break; sleep 0.1; done
  SOURCE="zoekt-model (the test model in tests/support/zoekt_model.rs, NOT a real Zoekt)"
else
  OUT=fixtures/recordings/zoekt
  PORT="${ZOEKT_PORT:-6079}"
  export ZOEKT_PORT="$PORT" ZOEKT_STATE_DIR="$ROOT/.zoekt/record"
  trap 'scripts/zoekt.sh down || true' EXIT
  URL="$(scripts/zoekt.sh up fixtures/corpus)"
  SOURCE=""
fi

rm -rf "$OUT"
if [ -n "$SOURCE" ]; then
  "$PAGER" --zoekt-url "$URL" record --scenarios fixtures/scenarios --out "$OUT" --source "$SOURCE"
else
  "$PAGER" --zoekt-url "$URL" record --scenarios fixtures/scenarios --out "$OUT"
fi
git --no-pager diff --stat -- "$OUT" || true
