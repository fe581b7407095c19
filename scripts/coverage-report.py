#!/usr/bin/env python3
"""Line coverage from `llvm-cov export -summary-only` (scripts/test.sh --coverage).

    coverage-report.py COVERAGE_JSON ROOT FLOOR

Prints each source file's line coverage under ROOT/src, the paging engine (src/engine/, its
test-only fake excluded) and the whole crate on lines of their own, and exits 1 when the
engine is under FLOOR percent."""
import json
import sys

report, root, floor = sys.argv[1], sys.argv[2].rstrip("/") + "/", float(sys.argv[3])
files = json.load(open(report))["data"][0]["files"]
rows = []
for f in files:
    name = f["filename"]
    if not name.startswith(root + "src/"):
        continue
    lines = f["summary"]["lines"]
    rows.append((name[len(root):], lines["covered"], lines["count"]))
rows.sort()


def pct(covered, count):
    return 100.0 * covered / count if count else 100.0


print(f"{'file':<40} {'lines':>7} {'covered':>8} {'%':>7}")
for name, covered, count in rows:
    print(f"{name:<40} {count:>7} {covered:>8} {pct(covered, count):>6.1f}%")
engine = [(c, n) for name, c, n in rows if name.startswith("src/engine/") and name != "src/engine/testing.rs"]
ec, en = sum(c for c, _ in engine), sum(n for _, n in engine)
ac, an = sum(c for _, c, _ in rows), sum(n for _, _, n in rows)
print(f"{'paging engine (src/engine, without testing.rs)':<40} {en:>7} {ec:>8} {pct(ec, en):>6.1f}%")
print(f"{'the whole crate (src/)':<40} {an:>7} {ac:>8} {pct(ac, an):>6.1f}%")
if pct(ec, en) < floor:
    print(f"coverage: the paging engine is under its floor of {floor:.0f}%", file=sys.stderr)
    sys.exit(1)
