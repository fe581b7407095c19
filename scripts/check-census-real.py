#!/usr/bin/env python3
"""One cheap census of the whole result (issue 50), measured and checked on REAL code.

`scripts/real-corpora.sh check` runs this against its two corpora (`many`: 678 real
repositories; `mono`: the same trees as one 90,898-file repository) with the release binary,
at the pager's default settings (gRPC, census wall time 3 s, max wall time 10 s, per-shard
cap 10,000, limit 30) unless a check says otherwise. Every expected answer comes from raw
Zoekt (`/api/search`, JSON, urllib), never from the pager. The must-shows:

1. Page 1 of 10 broad queries per content tool, the broadest a model types among them (`.`,
   `func`, `import`, `return`, `the`; `file:.`-like path queries; symbols): at most 2 Zoekt
   requests, and at most 1 more than the same page with suggestions off (the sidecar's
   /metrics, `zoekt_pager_zoekt_request_seconds_count`, and the page's own count,
   `zoekt_pager_zoekt_requests_per_page_sum`, per call), and a p50 time within 1.1 x the
   slower of raw Zoekt's page window (34 files, the tool's query) and raw Zoekt's census
   request (`type:file` + the tool's census query, 40,000 files, 3 s), all three timed in
   the same rounds, the window cache off (`serve --http ... --cache-bytes 0`).
2. The census's coverage (files it read against Zoekt's whole count of matching files) and
   every suggestion's count against raw Zoekt's count of the narrowed call's files (`type:file`
   of its census query, no caps, 20 s): equal where the counts say exact, within [2/3, 1.5]
   where about, at most it where at least; undecided where raw Zoekt's own count is cut and
   the bound does not settle it. With it, what the issue asks of the ways themselves (5 to 8;
   no directory offered whose parent level was skipped: the parent holds more than half of
   the result and the ways inside it name 2/3 of it, or it is offered too; no refinement that
   repeats the `file:` filter it refines; no directory of 5% of the census's files that no
   suggestion selects a file of).
3. `files_with_matches .`, `search (?s).`, `search a b` and `search \\b`: within Zoekt's wall
   time + 5 s, over gRPC and JSON, over MCP stdio and the command line.
4. Reach: targets chosen before running (TARGETS); from a broad query of each tool whose
   result holds the target, a model that follows only the suggestion selecting the target
   (the smallest count among those that do) reaches it within 3 calls.
5. count_only of a broad query per tool: p50 at most 2 x raw Zoekt's census request.
It also keeps what scripts/check-narrow-real.py checked (that script is gone): at least 3
suggestions on page 1, each narrowed call non-empty and smaller than the original, the top one
cutting at least 3 times, no `repo:` on the monorepo, at most 600 characters of JSON, and none
on a narrow result. And it prints, per corpus and tool, one page's suggestions as a model reads
them.

Exit status 1 when a check fails (0 with --report-only). Progress goes to stderr. Usage:
  scripts/check-census-real.py --bin BIN --zoekt many=URL --zoekt mono=URL
      [--rounds 3] [--count-rounds 5] [--only 1,2,3,4,5] [--markdown OUT.md] [--report-only]
      [--state STATE.json] [--tools search,...] [--queries N]
  scripts/check-census-real.py --merge STATE.json... --markdown OUT.md   (runs side by side)
Python 3, standard library only.
"""
# The checks live in scripts/census_real/ (one module a concern; TARGETS and the query lists
# in census_real/common.py); this file parses the arguments, runs the parts (resuming from
# --state) and writes the report.

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from census_real.common import QUERIES, TOOLS, say  # noqa: E402
from census_real.count import check_count  # noqa: E402
from census_real.heavy import check_heavy  # noqa: E402
from census_real.pager import Sidecar  # noqa: E402
from census_real.pages import UNREACHED, check_pages, unreached_failures  # noqa: E402
from census_real.reach import reach  # noqa: E402
from census_real.report import report  # noqa: E402


def main():
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin")
    ap.add_argument("--zoekt", action="append", default=[], metavar="NAME=URL")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--count-rounds", type=int, default=5)
    ap.add_argument("--only", default="1,2,3,4,5", help="which must-shows (2 needs 1's pages)")
    ap.add_argument("--tools", default=",".join(TOOLS), help="which tools (a quick look)")
    ap.add_argument("--queries", type=int, default=10, help="how many of each tool's queries")
    ap.add_argument("--markdown")
    ap.add_argument("--state", help="keep what is measured here after each part, and skip the "
                                     "parts it holds when run again (a long run that broke off)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--merge", nargs="+", metavar="STATE.json",
                    help="write one report of these states (runs of parts side by side) and stop")
    a = ap.parse_args()
    a.only = set(a.only.split(","))
    if a.merge:
        out = {k: [] for k in ("ms1", "ms2", "ms3", "ms4", "ms5", "examples")}
        failures, seconds = [], 0.0
        for path in a.merge:
            with open(path) as fh:
                st = json.load(fh)
            for k in out:
                out[k] += st["out"].get(k, [])
            # Unreached parts as this script now judges them (a run may be older).
            failures += [tuple(f) for f in st["failures"] if UNREACHED not in f[1]]
            for row in st["out"].get("ms2", []):
                failures += unreached_failures(row)
            seconds = max(seconds, st["seconds"])
        print(report(a, out, failures, seconds, a.markdown)[-3000:])
        return
    TOOLS[:] = [t for t in TOOLS if t in a.tools.split(",")]
    for tool in QUERIES:
        QUERIES[tool] = QUERIES[tool][:a.queries]
    if not a.bin or not a.zoekt:
        ap.error("--bin and --zoekt are needed (but with --merge)")
    corpora = [tuple(s.split("=", 1)) for s in a.zoekt]
    started = time.time()
    state = {"out": {k: [] for k in ("ms1", "ms2", "ms3", "ms4", "ms5", "examples")},
             "failures": [], "done": [], "seconds": 0.0}
    if a.state and os.path.exists(a.state):
        with open(a.state) as fh:
            state = json.load(fh)
        say(f"resuming from {a.state}: done {', '.join(state['done']) or 'nothing'}")
    out, failures = state["out"], state["failures"]
    failures[:] = [tuple(f) for f in failures]

    def section(key, run):
        """Runs one part once (a resumed run skips what is done), keeps going when it breaks,
        and saves what is known so far."""
        if key in state["done"]:
            return
        t = time.time()
        try:
            run()
            state["done"].append(key)
        except Exception as e:  # a broken part is a failure of the check, not the end of it
            import traceback
            traceback.print_exc()
            failures.append(("run", f"{key} broke off: {type(e).__name__}: {e}"))
        state["seconds"] += time.time() - t
        if a.state:
            with open(a.state, "w") as fh:
                json.dump(state, fh)
        if a.markdown:
            report(a, out, failures, state["seconds"], a.markdown)

    for name, url in corpora:
        parts = [(f"{name}:pages", {"1", "2"}), (f"{name}:count", {"5"}), (f"{name}:reach", {"4"})]
        if all(key in state["done"] or not (a.only & which) for key, which in parts):
            continue
        side = Sidecar(a.bin, url)
        plain = Sidecar(a.bin, url, extra=("--suggest-filters", "off"))
        try:
            if a.only & {"1", "2"}:
                section(f"{name}:pages", lambda: check_pages(a, name, url, side, plain, out, failures))
            if "5" in a.only:
                section(f"{name}:count", lambda: check_count(a, name, url, side, out, failures))
            if "4" in a.only:
                section(f"{name}:reach", lambda: reach(a, name, url, side, out, failures))
        finally:
            side.close()
            plain.close()
    if "3" in a.only:
        section("heavy", lambda: check_heavy(a, corpora, out, failures))
    text = report(a, out, failures, state["seconds"], a.markdown)
    print(text)
    sys.exit(1 if failures and not a.report_only else 0)


if __name__ == "__main__":
    main()
