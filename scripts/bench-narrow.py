#!/usr/bin/env python3
"""What suggested ways to narrow cost and how close their counts are (docs/narrowing.md).

For each broad query of each content tool, over MCP stdio against a real Zoekt, with the
window cache off so that every call asks Zoekt:
- page 1 latency p50 with suggestions on and off (two servers, calls interleaved in an order
  drawn at random each round, so that neither always runs right after the other has warmed
  Zoekt), and raw Zoekt's own time for the same first window in the same run; beside the
  difference of the two p50s, the p50 of the difference round by round (the two calls of a
  round meet the machine in the same state, so slow drift cancels out of it);
- the same page 1 served from the window cache (two more servers with the cache on, each call
  after the first a cache hit): with Zoekt out of the way, the difference on - off is what
  the suggestions themselves cost the pager (counting, choosing, writing them);
- characters of the suggestions' JSON (`narrow` and `narrow_note`);
- each suggestion's stated count against raw Zoekt's count for the narrowed query in the
  tool's items (matches; files for the tools whose items are files; matching lines for
  `find_references`), or in files where the count is of the files holding results (its key
  `files`, `files_about`, `files_at_least`), and how much the best one cuts.

Usage: scripts/bench-narrow.py --bin target/release/zoekt-pager --zoekt gen=URL [--zoekt ...]
       [--rounds 15] [--markdown out.md] [--control]
--control runs the same comparison with suggestions off on both sides (A against A): how far
apart two p50s of one setup land on the machine, the floor under any on - off difference.
"""

import argparse
import json
import os
import random
import statistics
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_stdio import Session  # noqa: E402

# Per corpus (NAME of --zoekt NAME=URL): (tool, arguments, raw Zoekt query with {f} for the
# filter, what raw Zoekt counts as the tool's items: "files", "matches", or "lines" (matching
# lines, summed over the whole answer: `find_references` lists a line once, however many times
# it holds the symbol)). `gen`: scripts/gen-corpus.py; `many`: scripts/gen-many-repos.py.
CALLS = {
    "gen": [
        ("search_symbols", {"query": "genSym"}, "{f} sym:genSym", "matches"),
        ("search", {"query": "genSym"}, "genSym {f}", "matches"),
        ("files_with_matches", {"query": "genSym"}, "genSym {f}", "files"),
        ("search_files", {"query": "unit_"}, "{f} file:unit_", "files"),
        # `int` is never defined (no ctags symbol), so every item is a usage line.
        ("find_references", {"symbol": "int"}, "case:yes {f} (sym:^int$ or content:\\bint\\b)", "lines"),
    ],
    "many": [
        ("search_symbols", {"query": "handle"}, "{f} sym:handle", "matches"),
        ("search", {"query": "logEvent"}, "logEvent {f}", "matches"),
        ("files_with_matches", {"query": "logEvent"}, "logEvent {f}", "files"),
        ("search_files", {"query": "unit_"}, "{f} file:unit_", "files"),
        # logEvent is called, never defined: every item is a line.
        ("find_references", {"symbol": "logEvent"},
         "case:yes {f} (sym:^logEvent$ or content:\\blogEvent\\b)", "lines"),
    ],
}


class Server(Session):
    """`zoekt-pager serve` over stdio against `zoekt`, the window cache off unless asked."""

    def __init__(self, binary, zoekt, env, cache=False):
        e = dict(os.environ, ZOEKT_URL=zoekt, ZOEKT_PAGER_LOG="warn", **env)
        if not cache:
            e["ZOEKT_PAGER_CACHE_BYTES"] = "0"
        super().__init__(binary, e, client="bench-narrow", stderr=None)


def raw(url, q, max_docs):
    body = {"Q": q, "Opts": {"MaxDocDisplayCount": max_docs, "ShardMaxMatchCount": 10000,
                             "MaxWallTime": 10_000_000_000}}
    t = time.perf_counter()
    req = urllib.request.Request(url + "/api/search", data=json.dumps(body).encode(), method="POST")
    r = json.load(urllib.request.urlopen(req))["Result"]
    return time.perf_counter() - t, r["FileCount"], r["MatchCount"]


def ways(sc):
    """A page's suggestions (src/form/narrow.rs), each (arg, value, count key, count): the
    value is the base, a space and the way's filter; the key says what the counts are
    (results, or the files holding them; exactly, about or at least)."""
    narrow = sc.get("narrow") or {}
    if not narrow:
        return []
    arg = next(k for k in narrow if k not in ("add", "count", "uncounted"))
    base = narrow[arg]
    return [(arg, f"{base} {added}" if base and added else base or added, narrow["count"], n)
            for added, n in narrow["add"]]


def raw_count(url, q, unit):
    """Raw Zoekt's count of a query's results in the tool's unit (see CALLS); "census files":
    the files it matches, each once (`type:file`, as the pager's census asks)."""
    if unit == "census files":
        return raw(url, "type:file " + q, 1)[1]
    if unit != "lines":
        _, files, matches = raw(url, q, 1)
        return files if unit == "files" else matches
    body = {"Q": q, "Opts": {"MaxDocDisplayCount": 100_000, "ShardMaxMatchCount": 100_000,
                             "TotalMaxMatchCount": 1_000_000, "MaxWallTime": 30_000_000_000}}
    req = urllib.request.Request(url + "/api/search", data=json.dumps(body).encode(), method="POST")
    files = json.load(urllib.request.urlopen(req))["Result"]["Files"] or []
    return sum(1 for f in files for m in (f.get("LineMatches") or []) if not m.get("FileName"))


def ms(xs):
    return statistics.median(xs) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--zoekt", action="append", required=True, metavar="NAME=URL")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--markdown")
    ap.add_argument("--control", action="store_true",
                    help="suggestions off on both servers: the noise of the comparison itself")
    a = ap.parse_args()
    cost_rows, count_rows = [], []
    for spec in a.zoekt:
        name, url = spec.split("=", 1)
        off_env = {"ZOEKT_PAGER_SUGGEST_FILTERS": "off"}
        # --control: both servers without suggestions, the same comparison run A against A,
        # to show how far two p50s of one setup drift apart on this machine.
        on_env = off_env if a.control else {}
        on, off = Server(a.bin, url, on_env), Server(a.bin, url, off_env)
        warm_on = Server(a.bin, url, on_env, cache=True)
        warm_off = Server(a.bin, url, off_env, cache=True)
        rng = random.Random(7)
        for tool, args, rawq, unit in CALLS[name]:
            args = dict(args, limit=30)
            t_on, t_off, t_raw, w_on, w_off = [], [], [], [], []
            for _ in range(a.rounds):
                pair = [(on, t_on), (off, t_off)]
                rng.shuffle(pair)
                for server, times in pair:
                    t, r = server.timed(tool, args)
                    times.append(t)
                    if server is on:
                        r_on = r
                # The first window of a page at limit 30: 31 items needed, 34 files asked.
                t_raw.append(raw(url, rawq.format(f=""), 34)[0])
            warm_on.timed(tool, args)
            warm_off.timed(tool, args)
            for _ in range(a.rounds):
                pair = [(warm_on, w_on), (warm_off, w_off)]
                rng.shuffle(pair)
                for server, times in pair:
                    times.append(server.timed(tool, args)[0])
            sc = r_on["structuredContent"]
            narrow = ways(sc)
            _, counted = on.timed(tool, dict(args, count_only=True))
            counted_narrow = ways(counted["structuredContent"])
            chars = len(json.dumps({"narrow": sc["narrow"], "narrow_note": sc.get("narrow_note", "")},
                                   separators=(",", ":"))) if narrow else 0
            original = raw_count(url, rawq.format(f=""), unit)
            cuts = []
            for page, w in [("page 1", w) for w in narrow] + [("count_only", w) for w in counted_narrow]:
                arg, value, key, stated = w
                kind = ("about" if key.endswith("_about") else
                        "at least" if key.endswith("_at_least") else "exact")
                filt = value[len(args.get(arg, "")):].strip() if value.startswith(args.get(arg, "")) else value
                # Line tools count the files holding results (`files*`): raw Zoekt's files.
                held = raw_count(url, rawq.format(f=filt), "census files" if key.startswith("files") else unit)
                if page == "page 1":
                    cuts.append(original / held if held else float("inf"))
                count_rows.append((name, tool, page, filt, kind, stated, held))
            # p50 of the round-by-round difference: both calls of a round meet the same moment
            # of the machine, so drift over the run cancels out of it, unlike p50(on) - p50(off).
            paired = ms([x - y for x, y in zip(t_on, t_off)])
            paired_cached = ms([x - y for x, y in zip(w_on, w_off)])
            cost_rows.append((name, tool, len(narrow), chars, ms(t_off), ms(t_on), ms(t_on) - ms(t_off),
                              paired, ms(t_raw), ms(w_off), ms(w_on), ms(w_on) - ms(w_off),
                              paired_cached, cuts[0] if cuts else 0))
            print(f"{name} {tool:18} ways {len(narrow)} json {chars:4} chars, p50 off {ms(t_off):6.1f} ms, "
                  f"on {ms(t_on):6.1f} ms, paired {paired:+.1f} ms, raw Zoekt {ms(t_raw):6.1f} ms, cached off {ms(w_off):5.2f} ms, "
                  f"on {ms(w_on):5.2f} ms, paired {paired_cached:+.2f} ms, best cuts {cuts[0] if cuts else 0:.1f}x", flush=True)
        for server in (on, off, warm_on, warm_off):
            server.close()
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| corpus | tool | ways | JSON chars | page 1 p50 off (ms) | on (ms) | on - off (ms) "
                    "| p50 of on - off by round (ms) | raw Zoekt p50 (ms) | cached page 1 p50 off (ms) "
                    "| on (ms) | on - off (ms) | p50 of on - off by round (ms) | best way cuts |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
            for n, t, w, c, off_, on_, d, pd, r, woff, won, wd, pwd, cut in cost_rows:
                f.write(f"| {n} | {t} | {w} | {c} | {off_:.1f} | {on_:.1f} | {d:+.1f} | {pd:+.1f} | {r:.1f} "
                        f"| {woff:.2f} | {won:.2f} | {wd:+.2f} | {pwd:+.2f} | {cut:.1f}x |\n")
            f.write("\n| corpus | tool | call | filter | count | stated | raw Zoekt | stated / raw |\n"
                    "|---|---|---|---|---|---|---|---|\n")
            for n, t, page, filt, kind, stated, held in count_rows:
                f.write(f"| {n} | {t} | {page} | `{filt}` | {kind} | {stated} | {held} | "
                        f"{stated / held if held else 0:.2f} |\n")


if __name__ == "__main__":
    main()
