#!/usr/bin/env python3
"""Suggested ways to narrow, checked on REAL code (scripts/real-corpora.sh check runs this).

Against the two real corpora of scripts/real-corpora.sh (`many`: hundreds of real repositories;
`mono`: the same trees as one repository), for broad queries of every content tool, through the
release binary over MCP stdio, each claim is held against raw Zoekt (never against the pager):
- page 1 at limit 30 carries at least 3 suggestions (and how many files page 1 came from: one,
  often, on real code);
- each suggestion, called, is non-empty and smaller than the original (raw Zoekt's count of the
  narrowed query, with the pager's effort caps, in the tool's items);
- the top one cuts the total at least 3 times;
- each of the top 3 counts is exact where marked exact ("results"); where estimated
  ("results_about"), it is within 2/3 and 3/2 of the narrowed query's own count; where a lower
  bound ("results_at_least"), it is at most that count (and how close it comes is printed);
- on `mono`, no `repo:` suggestion; the suggestions' JSON is at most 600 characters;
- a narrow query gets no suggestion.
With --bench: page 1 latency with suggestions on and off (cache off, and cached), beside raw
Zoekt's time for the same windows, and count_only against raw Zoekt's whole answer.

Exit status 1 when a check fails. Usage:
  scripts/check-narrow-real.py --bin BIN --zoekt many=URL --zoekt mono=URL [--bench]
      [--rounds 11] [--markdown OUT.md]
"""

import argparse
import base64
import importlib.util
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
import urllib.request

# The pager's effort caps (its defaults), so that raw counts are of the same result.
EFFORT = {"ShardMaxMatchCount": 10000, "MaxWallTime": 10_000_000_000}

# (tool, arguments, raw Zoekt query for the call with one more filter {f}, how the tool's items
# are counted in raw Zoekt's whole answer: see count_items). Hand-written from the tools'
# documented queries and items (docs/output.md), not taken from the pager.
def refs(symbol):
    return ("find_references", {"symbol": symbol},
            f"case:yes {{f}} (sym:^{symbol}$ or content:\\b{symbol}\\b)", ("refs", symbol))


CALLS = [
    ("search", {"query": "fn main"}, "fn main {f}", "lines"),
    ("search", {"query": "unsafe impl Send"}, "unsafe impl Send {f}", "lines"),
    ("search", {"query": "func New"}, "func New {f}", "lines"),
    ("search", {"query": "context.Context"}, "context.Context {f}", "lines"),
    ("search", {"query": "impl Default for"}, "impl Default for {f}", "lines"),
    ("search", {"query": "TODO"}, "TODO {f}", "lines"),
    ("search_symbols", {"query": "new"}, "{f} sym:new", "symbols"),
    ("search_symbols", {"query": "New"}, "{f} sym:New", "symbols"),
    ("search_symbols", {"query": "String"}, "{f} sym:String", "symbols"),
    ("search_symbols", {"query": "parse"}, "{f} sym:parse", "symbols"),
    ("search_symbols", {"query": "Close"}, "{f} sym:Close", "symbols"),
    refs("Result"),
    refs("Error"),
    refs("String"),
    refs("ctx"),
    refs("Option"),
    ("files_with_matches", {"query": "unsafe"}, "unsafe {f}", "content files"),
    ("files_with_matches", {"query": "fmt.Errorf"}, "fmt.Errorf {f}", "content files"),
    ("files_with_matches", {"query": "Copyright"}, "Copyright {f}", "content files"),
    ("files_with_matches", {"query": "mod tests"}, "mod tests {f}", "content files"),
    ("files_with_matches", {"query": "sync.Mutex"}, "sync.Mutex {f}", "content files"),
    ("search_files", {"query": "_test\\.go$"}, "{f} file:_test\\.go$", "path files"),
    ("search_files", {"query": "\\.rs$"}, "{f} file:\\.rs$", "path files"),
    ("search_files", {"query": "test"}, "{f} file:test", "path files"),
    ("search_files", {"query": "\\.md$"}, "{f} file:\\.md$", "path files"),
    ("search_files", {"query": "internal/"}, "{f} file:internal/", "path files"),
]

# Narrow queries: one page or less, no suggestion.
NARROW = [
    ("search", {"query": "zoektNeverWritesThis"}),
    ("search_symbols", {"query": "^NewTicker$ lang:Go file:^time/"}),
]


def _bench_narrow():
    """scripts/bench-narrow.py, whose MCP stdio client (`Server`) this script shares."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-narrow.py")
    spec = importlib.util.spec_from_file_location("bench_narrow", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The real binary over MCP stdio: `Server(binary, zoekt_url, env, cache=False)`, whose
# `timed(tool, args)` gives (seconds, result).
Server = _bench_narrow().Server


def raw(url, q, max_docs, context=0):
    body = {"Q": q, "Opts": dict(EFFORT, MaxDocDisplayCount=max_docs, NumContextLines=context)}
    t = time.perf_counter()
    req = urllib.request.Request(url + "/api/search", data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(req) as resp:
        data = resp.read()
    elapsed = time.perf_counter() - t
    r = json.loads(data)["Result"]
    return elapsed, r, len(data)


def count_items(url, q, unit):
    """The tool's items in raw Zoekt's whole answer for `q` (every file it found, under the
    pager's caps), counted as the README defines them:
    - lines: `search`, one per matching line (the path, line 0, when it matched);
    - symbols: `search_symbols`, one per symbol definition (line, column, name);
    - content files: `files_with_matches`, files with a matching line of content;
    - path files: `search_files`, files whose path matched (or that matched with no line);
    - ("refs", S): `find_references`, the definitions of S (one per line), then every line
      using S as a whole, case-sensitive word that does not define it."""
    if isinstance(unit, tuple):
        symbol = unit[1]
        defs_q = q.replace(f"(sym:^{symbol}$ or content:\\b{symbol}\\b)", f"sym:^{symbol}$")
        return count_definitions(url, defs_q, symbol) + count_usages(url, q, symbol)
    _, r, _ = raw(url, q, 1_000_000)
    files = r["Files"] or []
    if unit == "lines":
        return sum(len({m["LineNumber"] for m in f["LineMatches"] or []}) for f in files)
    if unit == "symbols":
        return sum(len({(m["LineNumber"], fr["LineOffset"], fr["SymbolInfo"]["Sym"])
                        for m in f["LineMatches"] or [] if m["LineNumber"] > 0
                        for fr in m["LineFragments"] or [] if fr.get("SymbolInfo")})
                   for f in files)
    content = lambda f: [m for m in f["LineMatches"] or [] if m["LineNumber"] > 0 and not m["FileName"]]
    if unit == "content files":
        return sum(1 for f in files if content(f))
    return sum(1 for f in files if any(m["FileName"] for m in f["LineMatches"] or []) or not content(f))


def count_definitions(url, q, symbol):
    _, r, _ = raw(url, q, 1_000_000)
    return sum(len({m["LineNumber"] for m in f["LineMatches"] or [] if m["LineNumber"] > 0
                    for fr in m["LineFragments"] or []
                    if (fr.get("SymbolInfo") or {}).get("Sym") == symbol})
               for f in r["Files"] or [])


def count_usages(url, q, symbol):
    word = re.compile(r"(?<![\w])" + re.escape(symbol) + r"(?![\w])")
    _, r, _ = raw(url, q, 1_000_000)
    n = 0
    for f in r["Files"] or []:
        for m in f["LineMatches"] or []:
            if m["LineNumber"] == 0 or m["FileName"]:
                continue
            if any((fr.get("SymbolInfo") or {}).get("Sym") == symbol for fr in m["LineFragments"] or []):
                continue
            if word.search(base64.b64decode(m["Line"]).decode("utf-8", "replace")):
                n += 1
    return n


# How a stated count reads in the report: exact, about, at least.
SIGN = {"results": "=", "results_about": "~", "results_at_least": ">="}


def text_of(result):
    return "\n".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def page_files(text):
    """Files page 1 came from: the text's header lines (a file's items are indented under it)."""
    head = text.split("\nWays to narrow")[0].split("\nItems ")[0]
    return sum(1 for line in head.splitlines() if line and not line.startswith(" "))


def ms(xs):
    return statistics.median(xs) * 1000


def check_corpus(a, name, url, rows, failures):
    srv = Server(a.bin, url, {})
    for tool, args, rawq, unit in CALLS:
        args = dict(args, limit=30)
        _, r = srv.timed(tool, args)
        if r.get("isError"):
            failures.append(f"{name} {tool} {args}: error {text_of(r)[:200]}")
            continue
        sc = r["structuredContent"]
        narrow = sc.get("narrow", [])
        note = sc.get("narrow_note", "")
        total = sc.get("total", sc.get("total_estimate"))
        files_on_page = page_files(text_of(r)) if tool not in ("search_files", "files_with_matches") else 30
        chars = len(json.dumps({"narrow": narrow, "narrow_note": note}, separators=(",", ":"))) if narrow else 0
        original = count_items(url, rawq.format(f=""), unit)
        label = f"{name} {tool} {json.dumps(args['query'] if 'query' in args else args['symbol'])}"
        if len(narrow) < 3:
            failures.append(f"{label}: {len(narrow)} suggestions")
        if chars > 600:
            failures.append(f"{label}: {chars} characters of JSON")
        ways = []
        for i, w in enumerate(narrow):
            arg, value = next((k, v) for k, v in w.items() if not k.startswith("results"))
            kind = next(k for k in ("results", "results_about", "results_at_least") if k in w)
            exact = kind == "results"
            stated = w[kind]
            base = args.get(arg, "")
            filt = value[len(base):].strip() if value.startswith(base) else value
            held = count_items(url, rawq.format(f=filt), unit)
            ratio = stated / held if held else float("inf")
            ways.append((filt, kind, stated, held, ratio))
            if name == "mono" and "repo:" in filt:
                failures.append(f"{label}: a repo: suggestion on the monorepo: {filt}")
            if held == 0 or held >= original:
                failures.append(f"{label}: {filt} holds {held} of {original}")
            if i == 0 and held and original / held < 3:
                failures.append(f"{label}: the top way {filt} cuts {original / held:.2f}x")
            if i < 3:
                if exact and stated != held:
                    failures.append(f"{label}: {filt} says exactly {stated}, raw Zoekt {held}")
                if kind == "results_about" and not (2 / 3 <= ratio <= 1.5):
                    failures.append(f"{label}: {filt} says about {stated}, raw Zoekt {held} ({ratio:.2f})")
                if kind == "results_at_least" and stated > held:
                    failures.append(f"{label}: {filt} says at least {stated}, raw Zoekt {held}")
        rows.append((name, tool, args.get("query", args.get("symbol")), total, original, files_on_page,
                     len(narrow), chars, note, ways))
        top = ways[0] if ways else None
        print(f"{label}: total {total} (raw {original}), page 1 from {files_on_page} file(s), "
              f"{len(narrow)} ways, {chars} chars"
              + (f"; top {top[0]} {SIGN[top[1]]}{top[2]} raw {top[3]} cuts "
                 f"{original / top[3] if top[3] else 0:.1f}x" if top else ""), flush=True)
        for filt, kind, stated, held, ratio in ways[1:3]:
            print(f"    {filt}: {SIGN[kind]}{stated}, raw {held} ({ratio:.2f})", flush=True)
    for tool, args in NARROW:
        _, r = srv.timed(tool, dict(args, limit=30))
        if r.get("structuredContent", {}).get("narrow"):
            failures.append(f"{name} {tool} {args}: a narrow query got suggestions")
    srv.close()


def bench_corpus(a, name, url, bench_rows):
    """Page 1 latency, suggestions on and off, cache off (cold) and cached; raw Zoekt's time for
    each side's first window; count_only against raw Zoekt's whole answer."""
    off_env = {"ZOEKT_PAGER_SUGGEST_FILTERS": "off"}
    on, off = Server(a.bin, url, {}), Server(a.bin, url, off_env)
    warm_on, warm_off = Server(a.bin, url, {}, cache=True), Server(a.bin, url, off_env, cache=True)
    counter = Server(a.bin, url, {}, cache=True)
    rng = random.Random(7)
    seen = set()
    for tool, args, rawq, _unit in CALLS:
        if tool in seen:
            continue
        seen.add(tool)
        args = dict(args, limit=30)
        t_on, t_off, w_on, w_off, r_off, r_on = [], [], [], [], [], []
        for _ in range(a.rounds):
            pair = [(on, t_on), (off, t_off)]
            rng.shuffle(pair)
            for server, times in pair:
                times.append(server.timed(tool, args)[0])
            # Raw Zoekt for the same first windows: 34 files (limit 30, no census), and the
            # census's 5,000 files.
            r_off.append(raw(url, rawq.format(f=""), 34)[0])
            r_on.append(raw(url, rawq.format(f=""), 5000)[0])
        for server in (warm_on, warm_off):
            server.timed(tool, args)
        for _ in range(a.rounds):
            pair = [(warm_on, w_on), (warm_off, w_off)]
            rng.shuffle(pair)
            for server, times in pair:
                times.append(server.timed(tool, args)[0])
        # count_only on a fresh server (cold), then raw Zoekt's whole answer of the query.
        fresh = Server(a.bin, url, {}, cache=True)
        t_count, counted = fresh.timed(tool, dict(args, count_only=True))
        fresh.close()
        t_whole, _, whole_bytes = raw(url, rawq.format(f=""), 100_000)
        row = (name, tool, ms(t_off), ms(t_on), (ms(t_on) / ms(t_off) - 1) * 100, ms(r_off), ms(r_on),
               ms(w_off), ms(w_on), t_count * 1000, t_whole * 1000, whole_bytes)
        bench_rows.append(row)
        print(f"{name} {tool:18} page 1 cold off {row[2]:7.1f} on {row[3]:7.1f} ms ({row[4]:+.0f}%), raw "
              f"Zoekt 34 files {row[5]:7.1f} / 5000 files {row[6]:7.1f} ms; cached off {row[7]:.2f} on "
              f"{row[8]:.2f} ms; count_only {row[9]:.0f} ms vs raw whole answer {row[10]:.0f} ms "
              f"({whole_bytes / 1e6:.1f} MB)", flush=True)
    for server in (on, off, warm_on, warm_off, counter):
        server.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--zoekt", action="append", required=True, metavar="NAME=URL")
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--markdown")
    a = ap.parse_args()
    rows, bench_rows, failures = [], [], []
    for spec in a.zoekt:
        name, url = spec.split("=", 1)
        check_corpus(a, name, url, rows, failures)
        if a.bench:
            bench_corpus(a, name, url, bench_rows)
    if a.markdown:
        write_markdown(a.markdown, rows, bench_rows, failures)
    print(f"\n{len(rows)} calls checked, {len(failures)} failed")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


def write_markdown(path, rows, bench_rows, failures):
    with open(path, "w") as f:
        f.write("# Suggested ways to narrow, on real code\n\n"
                "Written by `scripts/real-corpora.sh check` (`scripts/check-narrow-real.py`): each "
                "broad call's page 1 at limit 30, its suggestions, and raw Zoekt's count for each "
                "narrowed call in the tool's items (matching lines, or files), under the pager's "
                "effort caps. `=` exact, `~` estimated, `>=` a lower bound.\n\n"
                "| corpus | tool | query | total | raw | page 1 files | ways | JSON chars | top 3 (stated / raw) | top cuts |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n")
        for name, tool, q, total, original, files, n, chars, _note, ways in rows:
            top = "; ".join(f"`{w[0]}` {SIGN[w[1]]}{w[2]} / {w[3]}" for w in ways[:3])
            cut = f"{original / ways[0][3]:.1f}x" if ways and ways[0][3] else "-"
            f.write(f"| {name} | {tool} | `{q}` | {total} | {original} | {files} | {n} | {chars} | {top} | {cut} |\n")
        if bench_rows:
            f.write("\n## Page 1 latency (p50 ms) and count_only\n\n"
                    "| corpus | tool | cold off | cold on | on vs off | raw Zoekt 34 files | raw Zoekt 5,000 files "
                    "| cached off | cached on | count_only cold | raw whole answer | whole answer MB |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
            for r in bench_rows:
                f.write(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:+.0f}% | {r[5]:.1f} | {r[6]:.1f} "
                        f"| {r[7]:.2f} | {r[8]:.2f} | {r[9]:.0f} | {r[10]:.0f} | {r[11] / 1e6:.1f} |\n")
        f.write(f"\n{len(rows)} calls checked, {len(failures)} failed.\n")
        for x in failures:
            f.write(f"- {x}\n")


if __name__ == "__main__":
    main()
