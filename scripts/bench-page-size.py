#!/usr/bin/env python3
"""What a page costs a model to read: characters per item of each form of a tool result.

Usage:
    bench-page-size.py --bin target/release/zoekt-pager --zoekt gen=URL --zoekt deep=URL
                       [--limits 30,100] [--pages 3] [--markdown OUT.md] [--env K=V ...]

Starts `zoekt-pager serve` (MCP over stdio) once per Zoekt, calls every paged tool on the
queries below at each limit, walks the first --pages pages, and prints per tool, query and
limit:
- json/item: characters of the compact JSON of `structuredContent` (what Claude Code, VS Code
  and Copilot CLI hand the model: JSON.stringify, no spaces, non-ASCII as is), per item;
- text/item: characters of the text block (what clients that read text hand the model);
- json/text: the ratio of the two.
Characters are counted as JavaScript counts a string's length (UTF-16 code units).
Nothing is asserted: the numbers are the output. Only the Python 3 standard library is used.
"""

import argparse
import json
import os
import subprocess
import sys

QUERIES = {
    # the generated 12,000-file corpus (scripts/gen-corpus.py)
    "gen": [
        ("search_symbols", {"query": "genSym"}),
        ("search", {"query": "genSym"}),
        ("find_references", {"symbol": "x"}),
        ("files_with_matches", {"query": "genSym"}),
        ("search_files", {"query": "unit_"}),
        ("list_repos", {}),
    ],
    # the deep-path monorepo corpus (scripts/gen-deep.py)
    "deep": [
        ("search_symbols", {"query": "handle"}),
        ("search", {"query": "logEvent"}),
        ("find_references", {"symbol": "logEvent"}),
        ("files_with_matches", {"query": "logEvent"}),
        ("search_files", {"query": "adapters"}),
        ("list_repos", {}),
    ],
}


def js_len(s):
    """String length as JavaScript counts it (UTF-16 code units)."""
    return len(s.encode("utf-16-le")) // 2


class Server:
    def __init__(self, binary, zoekt, env):
        e = dict(os.environ, ZOEKT_URL=zoekt, ZOEKT_PAGER_LOG="warn", **env)
        self.p = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, env=e, text=True)
        self.next_id = 1
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench-page-size", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("the server closed stdout")
            msg = json.loads(line)
            if msg.get("id") == i:
                if "error" in msg:
                    sys.exit(f"{method}: {msg['error']}")
                return msg["result"]

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def rows(page):
    """Items on a structured page: the rows of every group of every part."""
    n = 0
    for part in [page] + [page[k] for k in ("definitions", "references") if k in page]:
        n += len(part.get("rows", []))
        # A group is a list; its rows are the entry that `fields` names with a list.
        at = next((i for i, f in enumerate(part.get("fields", [])) if isinstance(f, list)), None)
        for group in part.get("files", []) + part.get("repos", []):
            n += len(group[at])
    return n


def measure(server, tool, args, limit, pages):
    json_chars = text_chars = items = 0
    cursor = None
    for _ in range(pages):
        a = dict(args, limit=limit)
        if cursor:
            a["cursor"] = cursor
        r = server.request("tools/call", {"name": tool, "arguments": a})
        if r.get("isError"):
            sys.exit(f"{tool} {args}: {r['content'][0]['text']}")
        sc = r["structuredContent"]
        json_chars += js_len(json.dumps(sc, separators=(",", ":"), ensure_ascii=False))
        text_chars += sum(js_len(c["text"]) for c in r["content"] if c["type"] == "text")
        items += rows(sc)
        cursor = sc.get("next_cursor")
        if not cursor:
            break
    return items, json_chars, text_chars


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/release/zoekt-pager")
    ap.add_argument("--zoekt", action="append", required=True, help="NAME=URL, NAME in gen, deep")
    ap.add_argument("--limits", default="30,100")
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--env", action="append", default=[], help="K=V for the server")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    env = dict(kv.split("=", 1) for kv in a.env)
    rows = []
    for spec in a.zoekt:
        name, url = spec.split("=", 1)
        server = Server(a.bin, url, env)
        for tool, args in QUERIES[name]:
            for limit in [int(x) for x in a.limits.split(",")]:
                items, jc, tc = measure(server, tool, args, limit, a.pages)
                q = args.get("query") or args.get("symbol") or ""
                rows.append((name, tool, q, limit, items, jc / items, tc / items, jc / tc))
                print(f"{name:4} {tool:18} {q:9} limit {limit:3}: {items:4} items, "
                      f"json/item {jc / items:6.1f}, text/item {tc / items:6.1f}, "
                      f"json/text {jc / tc:4.2f}", flush=True)
        server.close()
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| corpus | tool | query | limit | items | JSON / item | text / item "
                    "| JSON / text |\n|---|---|---|---|---|---|---|---|\n")
            for name, tool, q, limit, items, j, t, r in rows:
                f.write(f"| {name} | {tool} | `{q}` | {limit} | {items} | {j:.0f} | {t:.0f} "
                        f"| {r:.2f} |\n")


if __name__ == "__main__":
    main()
