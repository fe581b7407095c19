#!/usr/bin/env bash
# Line coverage of the library from the test suite against the real Zoekt
# (scripts/test.sh brings the webservers up), measured with cargo-tarpaulin's LLVM engine (it
# needs no llvm-tools component). Prints a per-file table, the paging engine (src/engine/, its
# test-only fake excluded) on its own line, and exits non-zero when the engine is under the
# floor.
#
#   scripts/coverage.sh              # floor 90%
#   COVERAGE_FLOOR=85 scripts/coverage.sh
#   scripts/coverage.sh --install-only   # just install the pinned cargo-tarpaulin
#
# The report is kept in target/coverage/tarpaulin-report.json (under CARGO_TARGET_DIR when
# set); instrumented builds go there too, so they never invalidate the normal build.
set -euo pipefail
# -P: tarpaulin reports real paths, which a path through a symlink would not match.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$ROOT"
FLOOR="${COVERAGE_FLOOR:-90}"
TARPAULIN_VERSION=0.37.5
OUT="${CARGO_TARGET_DIR:-$ROOT/target}/coverage"

say() { printf 'coverage.sh: %s\n' "$*" >&2; }
if ! cargo tarpaulin --version 2>/dev/null | grep -qwF "$TARPAULIN_VERSION"; then
  say "installing cargo-tarpaulin $TARPAULIN_VERSION (once)"
  # In its own temporary build folder (CARGO_TARGET_DIR unset): CI runs this beside the test
  # build, which holds the shared one.
  env -u CARGO_TARGET_DIR cargo install cargo-tarpaulin --version "$TARPAULIN_VERSION" --locked
fi
if [ "${1:-}" = --install-only ]; then
  exit 0
fi
mkdir -p "$OUT"
rm -f "$OUT/tarpaulin-report.json"

# Library and test targets only: the benches are programs that would run whole benchmarks.
# The MCP tests spawn `zoekt-pager serve`, built instrumented; it writes its own profile
# (LLVM_PROFILE_FILE is inherited), so its coverage counts too.
# Every integration suite but the three scale suites, which CI has just run uninstrumented:
# they take about 4 of the run's 7 minutes (walking 12,000 files, 40 tied repositories and
# every window size), and every code path they take is taken by the smaller suites and the
# unit tests too. COVERAGE_ALL=1 runs them as well.
SLOW="exact_at_scale ties window_cache"
suites=()
for f in tests/*.rs; do
  name="$(basename "$f" .rs)"
  if [ -z "${COVERAGE_ALL:-}" ] && [[ " $SLOW " == *" $name "* ]]; then continue; fi
  suites+=(--test "$name")
done
scripts/test.sh --run cargo tarpaulin --engine llvm --skip-clean --locked \
  --target-dir "$OUT/build" --lib "${suites[@]}" \
  --exclude-files 'tests/*' 'benches/*' 'src/engine/testing.rs' 'src/fanout/testing.rs' \
  --out Json --output-dir "$OUT" --timeout 600 "$@"

python3 - "$OUT/tarpaulin-report.json" "$FLOOR" "$ROOT" <<'PY'
import json, os, sys
report, floor, root = json.load(open(sys.argv[1])), float(sys.argv[2]), sys.argv[3]
# The project's own sources only (the report also names generated corpora and build scripts'
# outputs, with nothing to cover); a file reported twice counts once, at its fullest.
best = {}
for f in report["files"]:
    path = os.path.relpath(os.path.normpath("/" + "/".join(f["path"]).lstrip("/")), root)
    if path.startswith("src/") and f["coverable"] > 0:
        best[path] = max(best.get(path, (0, 0)), (f["covered"], f["coverable"]))
rows = sorted((path, c, n) for path, (c, n) in best.items())
print(f"{'file':<36} {'lines':>13} {'cover':>7}")
def line(name, covered, coverable):
    pct = 100.0 * covered / coverable if coverable else 100.0
    print(f"{name:<36} {covered:>6}/{coverable:<6} {pct:>6.1f}%")
    return pct
for path, covered, coverable in rows:
    line(path, covered, coverable)
engine = [r for r in rows if r[0].startswith("src/engine/")]
if not engine:
    sys.exit("coverage.sh: the report names no file of src/engine/: nothing was measured")
print("-" * 58)
line("library", sum(r[1] for r in rows), sum(r[2] for r in rows))
pct = line("paging engine (src/engine/)", sum(r[1] for r in engine), sum(r[2] for r in engine))
if pct < floor:
    print(f"coverage.sh: the paging engine is at {pct:.1f}%, under the {floor:.0f}% floor", file=sys.stderr)
    sys.exit(1)
print(f"coverage.sh: the paging engine is at {pct:.1f}% (floor {floor:.0f}%)")
PY
