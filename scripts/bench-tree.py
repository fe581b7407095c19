#!/usr/bin/env python3
"""What `list_tree` costs and whether its counts hold, on a real Zoekt (docs/bench/tree.md).

Over MCP stdio against the real `zoekt-pager serve`, for one repository's top at a depth:
- cold: the first call of a fresh server (its window cache empty), and the Zoekt requests it
  made (from the server's own log line); the median of --rounds fresh servers;
- cached: the same call again, the same tree to another depth, and a directory inside it,
  on the warm server (each must make no Zoekt request);
- raw Zoekt's own time for the same listing, in the same run: every file of the repository
  by name only (`type:file`), uncapped, over its JSON API;
- each directory entry's count against `search_files` `count_only` for its prefix and raw
  Zoekt's file count for it: equal, or marked a lower bound and at most that count;
- the server's peak resident memory (VmHWM) after the calls.

Usage: scripts/bench-tree.py --bin target/release/zoekt-pager --zoekt URL --repo monorepo
       [--depth 2] [--rounds 5] [--inside go-toolchain/src/] [--markdown out.md]
"""

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_stdio import Session  # noqa: E402


class Server(Session):
    """`zoekt-pager serve` over stdio, its log in a file (each page's Zoekt requests)."""

    def __init__(self, binary, zoekt):
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
        env = dict(os.environ, ZOEKT_URL=zoekt, ZOEKT_PAGER_LOG="info")
        super().__init__(binary, env, client="bench-tree", stderr=self.log)

    def call(self, tool, args):
        """(seconds, result, Zoekt requests of the page)."""
        took, r = self.timed(tool, args)
        assert not r.get("isError"), r["content"][0]["text"]
        time.sleep(0.05)
        self.log.seek(0)
        served = re.findall(r"zoekt_requests=(\d+)", self.log.read())
        return took, r, int(served[-1]) if served else None

    def peak_mib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))
        return kb / 1024

    def close(self):
        super().close()
        os.unlink(self.log.name)


def raw(url, q):
    """(seconds, files, bytes of JSON) of raw Zoekt listing `q` whole."""
    body = {"Q": q, "Opts": {"MaxDocDisplayCount": 1_000_000, "ShardMaxMatchCount": 1_000_000,
                             "TotalMaxMatchCount": 10_000_000, "MaxWallTime": 60_000_000_000}}
    t = time.perf_counter()
    req = urllib.request.Request(url + "/api/search", data=json.dumps(body).encode(),
                                 method="POST")
    data = urllib.request.urlopen(req).read()
    took = time.perf_counter() - t
    return took, json.loads(data)["Result"]["FileCount"], len(data)


def rows(result):
    """The page's entries as dicts, from its structured content (flat rows)."""
    sc = result["structuredContent"]
    # A row ends at its last present cell; the top's path is empty (absent).
    entries = [dict(zip(sc["fields"], r)) for r in sc["rows"]]
    for e in entries:
        e["path"] = e.get("path") or ""
    return entries


def ms(x):
    return f"{x * 1000:.0f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--zoekt", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--inside", help="a directory inside the top, read from the cache")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    args = {"repo": a.repo, "depth": a.depth, "limit": 100}
    lines = []

    def say(s=""):
        print(s, flush=True)
        lines.append(s)

    cold, cold_requests, raw_times = [], [], []
    for _ in range(a.rounds):
        s = Server(a.bin, a.zoekt)
        took, first, requests = s.call("list_tree", args)
        cold.append(took)
        cold_requests.append(requests)
        s.close()
        raw_times.append(raw(a.zoekt, f"type:file case:yes r:^{re.escape(a.repo)}$")[0])
    _, raw_files, raw_bytes = raw(a.zoekt, f"type:file case:yes r:^{re.escape(a.repo)}$")

    s = Server(a.bin, a.zoekt)
    _, first, _ = s.call("list_tree", args)
    entries = rows(first)
    text = first["content"][0]["text"]
    sc = first["structuredContent"]
    cached = []
    inside = a.inside or next(e["path"] for e in entries[1:] if e["kind"] == "dir")
    for what, call in [("the same call", args),
                       ("another depth", dict(args, depth=a.depth + 1)),
                       (f"inside: {inside}", {"repo": a.repo, "path": inside, "limit": 100})]:
        took, _, requests = s.call("list_tree", call)
        cached.append((what, took, requests))

    say(f"## list_tree {a.repo} at depth {a.depth} (limit 100), {a.zoekt}")
    say()
    say(f"- one call: {len(entries)} entries, total {sc['total']}, "
        f"{'more pages' if sc.get('next_cursor') else 'no further page'}; "
        f"text {len(text):,} characters, structured {len(json.dumps(sc)):,}")
    say(f"- top: {entries[0]['files']:,} files"
        f"{' (lower bound)' if entries[0].get('files_at_least') else ''}; "
        f"raw Zoekt lists {raw_files:,} ({raw_bytes / 1e6:.1f} MB of JSON)")
    say()
    say("| call | median | runs | Zoekt requests |")
    say("|---|---|---|---|")
    say(f"| cold (fresh server) | {ms(statistics.median(cold))} | "
        f"{', '.join(ms(x) for x in cold)} | {cold_requests} |")
    for what, took, requests in cached:
        say(f"| cached: {what} | {ms(took)} | 1 | {requests} |")
    say(f"| raw Zoekt, the whole listing (JSON) | {ms(statistics.median(raw_times))} | "
        f"{', '.join(ms(x) for x in raw_times)} | 1 |")
    say()
    say(f"Server peak memory (VmHWM): {s.peak_mib():.0f} MiB")
    say()

    # Every directory's count against search_files count_only and raw Zoekt.
    say("| directory | list_tree | search_files count_only | raw Zoekt | holds |")
    say("|---|---|---|---|---|")
    bad = 0
    for e in entries:
        if e["kind"] != "dir":
            continue
        prefix = re.escape(e["path"]).replace("\\/", "/")
        q = f"case:yes r:^{re.escape(a.repo)}$" + (f" f:^{prefix}" if e["path"] else "")
        _, r, _ = s.call("search_files", {"query": q, "count_only": True})
        sc_count = r["structuredContent"]
        # `total` when exact; otherwise the name says what it is.
        count = next(f"{sc_count[k]:,}{mark}" for k, mark in
                     [("total", ""), ("total_estimate", " (estimate)"),
                      ("total_at_least", " (at least)")] if k in sc_count)
        _, raw_count, _ = raw(a.zoekt, "type:file " + q)
        at_least = bool(e.get("files_at_least"))
        holds = (e["files"] == raw_count) if not at_least else (e["files"] <= raw_count)
        bad += not holds
        mark = "+" if at_least else ""
        say(f"| `{e['path'] or '/'}` | {e['files']:,}{mark} | {count} | {raw_count:,} | "
            f"{'yes' if holds else 'NO'} |")
    s.close()
    say()
    say(f"{bad} directories whose count does not hold")
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    return bad == 0


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
