#!/usr/bin/env python3
"""What an outline costs a model, against today's search_symbols pages for the same file.

    scripts/bench-outline.py [--zoekt-url URL] [--repo REPO] [--path PATH] [--bin ZOEKT_PAGER]

Defaults: the real monorepo corpus (`scripts/real-corpora.sh up`: http://127.0.0.1:6092,
repository `monorepo`) and `go-toolchain/src/net/http/server.go`, through the binary in
target/debug (build it first: `cargo build`).

Walks, through the CLI (whose page text is MCP's text block, and whose --json is MCP's
structuredContent), every page at limit 100 of
  - `outline_file REPO PATH`, and
  - `search_symbols '. file:^PATH$'` (the path escaped), the call a model makes today,
and prints the characters of every page's text and JSON, summed, and their ratio. It then
checks the symbol sets against raw Zoekt (`/api/search` with `sym:.`, which is the truth here,
not the pager): the outline and search_symbols each hold every symbol of Zoekt's answer once,
none lost, none twice, none extra. Exits 1 when a set differs.
"""

import argparse
import base64
import collections
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def go_regex_literal(text):
    """`text` as a regular expression matching only itself (Go's QuoteMeta)."""
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", text)


def raw_zoekt(url, query, whole=False):
    body = {"Q": query, "Opts": {"MaxDocDisplayCount": 10, "Whole": whole}}
    req = urllib.request.Request(
        url + "/api/search",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)["Result"]


def truth(url, repo, path):
    """(line, kind, name) of every symbol raw Zoekt finds in the file, and its lines."""
    atoms = f"case:yes r:^{go_regex_literal(repo)}$ f:^{go_regex_literal(path)}$"
    result = raw_zoekt(url, atoms + " sym:.")
    symbols = {}
    for f in result.get("Files") or []:
        if (f["Repository"], f["FileName"]) != (repo, path):
            continue
        for lm in f["LineMatches"] or []:
            for frag in lm["LineFragments"] or []:
                info = frag.get("SymbolInfo")
                if info:
                    key = (lm["LineNumber"], frag["LineOffset"], info["Sym"])
                    symbols[key] = (lm["LineNumber"], info["Kind"], info["Sym"])
    whole = raw_zoekt(url, atoms, whole=True)
    content = base64.b64decode(whole["Files"][0]["Content"]).decode("utf-8", "replace")
    return list(symbols.values()), len(content.splitlines())


def walk(binary, url, args):
    """Every page at limit 100: (text chars, JSON chars, pages, seconds, JSON pages)."""
    env = dict(os.environ, ZOEKT_URL=url)
    base = [binary] + args + ["--limit", "100", "--all"]
    t0 = time.monotonic()
    text = subprocess.run(base, env=env, capture_output=True, text=True, check=True).stdout
    seconds = time.monotonic() - t0
    out = subprocess.run(base + ["--json"], env=env, capture_output=True, text=True, check=True)
    pages = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    # The CLI prints each page's text (and each JSON page) followed by one newline.
    text_chars = len(text) - len(pages)
    json_chars = sum(len(line) for line in out.stdout.splitlines() if line.strip())
    return text_chars, json_chars, len(pages), seconds, text, pages


def outline_symbols(pages):
    """(line, kind, name) of every outline row, from the structured pages."""
    out = []
    for page in pages:
        columns = page["fields"][2]
        # A recurring kind is said once, in `kind_by_number`, and its cells give its number.
        kinds = page.get("kind_by_number", [])
        for _repo, _path, rows in page["files"]:
            for row in rows:
                cells = dict(zip(columns, row))
                kind = cells["kind"]
                out.append((cells["line"], kinds[kind] if isinstance(kind, int) else kind,
                            cells["name"]))
    return out


SYMBOL_LINE = re.compile(r"^  (\d+):\d+ (\S+) (\S+)")


def search_symbols_symbols(text):
    """(line, kind, name) of every search_symbols item, from the text pages."""
    return [
        (int(m[1]), m[2], m[3])
        for m in map(SYMBOL_LINE.match, text.splitlines())
        if m
    ]


def compare(name, got, want):
    got_c, want_c = collections.Counter(got), collections.Counter(want)
    twice = sum(n - 1 for n in got_c.values() if n > 1)
    lost = sum((want_c - got_c).values())
    extra = sum((got_c - want_c).values())
    ok = twice == 0 and lost == 0 and extra == 0
    print(f"  {name:<15} {len(got):>5} symbols: {lost} lost, {twice} twice, {extra} not in Zoekt's"
          f" answer {'(same set)' if ok else '(DIFFERS)'}")
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--zoekt-url", default="http://127.0.0.1:6092")
    p.add_argument("--repo", default="monorepo")
    p.add_argument("--path", default="go-toolchain/src/net/http/server.go")
    p.add_argument("--bin", default=os.path.join(ROOT, "target/debug/zoekt-pager"))
    a = p.parse_args()

    want, lines = truth(a.zoekt_url, a.repo, a.path)
    # The call a model makes today for a file's symbols (the issue's: no repository atom;
    # the items are checked against Zoekt's answer for this repository below).
    query = f". file:^{go_regex_literal(a.path)}$"
    o_text, o_json, o_pages, o_secs, _, o_structured = walk(
        a.bin, a.zoekt_url, ["outline_file", a.repo, a.path])
    s_text, s_json, s_pages, s_secs, s_plain, _ = walk(
        a.bin, a.zoekt_url, ["search_symbols", query])

    print(f"{a.repo}/{a.path}: {lines} lines, {len(want)} symbols in raw Zoekt's answer")
    print(f"  {'walk at limit 100':<44} {'pages':>5} {'text chars':>10} {'JSON chars':>10}"
          f" {'seconds':>7}")
    print(f"  {'search_symbols':<44} {s_pages:>5} {s_text:>10}"
          f" {s_json:>10} {s_secs:>7.2f}")
    print(f"  {'outline_file':<44} {o_pages:>5} {o_text:>10} {o_json:>10} {o_secs:>7.2f}")
    print(f"  outline / search_symbols: text {o_text / s_text:.3f}, JSON {o_json / s_json:.3f}")
    same = compare("outline_file", outline_symbols(o_structured), want)
    same &= compare("search_symbols", search_symbols_symbols(s_plain), want)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
