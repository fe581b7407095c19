#!/usr/bin/env bash
# Re-records every scenario in fixtures/scenarios against the pinned real Zoekt on
# fixtures/corpus, into fixtures/recordings/zoekt, in one command.
#
# Recorded over gRPC, the pager's default transport (`ZOEKT_PAGER_ZOEKT_TRANSPORT` is dropped
# below with the other settings); a recording holds the calls on the engine's backend seam,
# the same over either API (docs/harness.md).
#
# Old recordings are replaced; review the diff (`git diff fixtures/recordings`): recorded
# answers may move (Zoekt orders equal-score files differently from run to run) but a golden
# (a `results` entry) that changes is a behaviour change to explain.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The binary a user installs: the harness is part of every build.
cargo build --quiet --release --bin zoekt-pager
PAGER="${CARGO_TARGET_DIR:-$ROOT/target}/release/zoekt-pager"
# The recordings hold the engine's settings: record with the defaults, not this shell's.
for v in $(env | grep -o '^ZOEKT_PAGER_[A-Z_]*' | grep -v '^ZOEKT_PAGER_LOG' || true); do unset "$v"; done

OUT=fixtures/recordings/zoekt
export ZOEKT_PORT="${ZOEKT_RECORD_PORT:-6079}" ZOEKT_STATE_DIR="$ROOT/.zoekt/record"
# Record into a scratch folder first: a failed recording leaves the committed one alone.
NEW="$(mktemp -d "${TMPDIR:-/tmp}/zoekt-record.XXXXXX")"
trap 'rm -rf "$NEW"; scripts/zoekt.sh down || true' EXIT
URL="$(scripts/zoekt.sh up fixtures/corpus)"

VERSION="$(scripts/zoekt.sh version)"
"$PAGER" --zoekt-url "$URL" record --scenarios fixtures/scenarios --out "$NEW/zoekt" \
  --source "zoekt $VERSION (scripts/zoekt.sh), fixtures/corpus"
rm -rf "$OUT"
mv "$NEW/zoekt" "$OUT"
git --no-pager diff --stat -- "$OUT" || true
