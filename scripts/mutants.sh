#!/usr/bin/env bash
# Mutation testing of the paging engine with cargo-mutants, against the real Zoekt
# (scripts/test.sh brings the webservers up): does the test suite notice when the engine's
# code is wrong? Prints caught / missed / unviable / timed out, and writes the summary (date,
# scope, counts, every missed mutant) to docs/mutants.md, which is committed.
#
#   scripts/mutants.sh                                   # the engine's algorithms (below)
#   MUTANTS_FILES="src/engine/page.rs" scripts/mutants.sh # one file
#   scripts/mutants.sh --iterate                          # skip mutants caught last time
#
# Scope: the cursor, the window sequence, the page cut and its totals, the contract's order,
# and the text helpers every tool's flattening uses. Tests: the engine's unit tests (over a
# fake backend) and the fast live suites (contract, zoekt_requests); the minute-long live
# suites would make a run take days on two cores. Too slow for every CI run: run it after
# changing the engine, and commit docs/mutants.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MUTANTS_VERSION=27.1.0
FILES="${MUTANTS_FILES:-src/engine/cursor.rs src/engine/answer.rs src/engine/window.rs src/engine/fetch.rs src/engine/page.rs src/engine/order.rs src/engine/text.rs}"
OUT="${CARGO_TARGET_DIR:-$ROOT/target}/mutants"

say() { printf 'mutants.sh: %s\n' "$*" >&2; }
if ! cargo mutants --version 2>/dev/null | grep -qwF "$MUTANTS_VERSION"; then
  say "installing cargo-mutants $MUTANTS_VERSION (once)"
  env -u CARGO_TARGET_DIR cargo install cargo-mutants --version "$MUTANTS_VERSION" --locked
fi
args=()
for f in $FILES; do args+=(--file "$f"); done
mkdir -p "$OUT"
rm -rf "$OUT/mutants.out"
started=$(date +%s)
# Debug info off: each mutant is a rebuild, and linking debug info dominates it.
# cargo-mutants exits 2 when mutants were missed and 3 on timeouts (the summary says which);
# anything else (a failed baseline, no Zoekt) is a failed run.
rc=0
CARGO_PROFILE_DEV_DEBUG=0 scripts/test.sh --run cargo mutants "${args[@]}" \
  --output "$OUT" --timeout 180 --build-timeout 600 --no-shuffle "$@" \
  -- --features live --lib --test live -- contract:: zoekt_requests:: || rc=$?
case "$rc" in
  0|2|3) ;;
  *) say "cargo-mutants failed (exit $rc): no summary written"; exit "$rc" ;;
esac

python3 - "$OUT/mutants.out/outcomes.json" "$FILES" "$(( $(date +%s) - started ))" "$*" <<'PY'
import datetime, json, sys
outcomes = json.load(open(sys.argv[1]))
files, seconds, extra = sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
counts = {"caught": 0, "missed": 0, "unviable": 0, "timeout": 0}
missed = []
for o in outcomes["outcomes"]:
    if o["scenario"] == "Baseline":
        if o["summary"] != "Success":
            sys.exit(f"mutants.sh: the unmutated baseline did not pass ({o['summary']})")
        continue
    summary = o["summary"]
    key = {"CaughtMutant": "caught", "MissedMutant": "missed", "Unviable": "unviable",
           "Timeout": "timeout"}.get(summary, summary)
    counts[key] = counts.get(key, 0) + 1
    if key == "missed":
        m = o["scenario"]["Mutant"]
        missed.append(m["name"])
viable = counts["caught"] + counts["missed"] + counts["timeout"]
caught_pct = 100.0 * (counts["caught"] + counts["timeout"]) / viable if viable else 100.0
lines = [
    "# Mutation testing: last run",
    "",
    f"Written by `scripts/mutants.sh` on {datetime.date.today()} ({seconds // 60} min, cargo-mutants).",
    "",
    "Scope: " + ", ".join(f"`{f}`" for f in files) + "."
    + (f" Arguments `{extra}`: with `--iterate` or a filter, this run is only part of it." if extra else ""),
    "Tests: the library's unit tests and the live `contract` and `zoekt_requests` suites.",
    "",
    "| caught | missed | unviable | timed out | caught of viable |",
    "|---|---|---|---|---|",
    f"| {counts['caught']} | {counts['missed']} | {counts['unviable']} | {counts['timeout']} | {caught_pct:.1f}% |",
    "",
    "A timeout counts as caught: the mutant made a test hang rather than pass.",
    "",
    "Missed mutants:" if missed else "No mutant was missed.",
    "",
] + [f"- {m}" for m in missed]
open("docs/mutants.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
