#!/usr/bin/env python3
"""Memory of the sidecar under the heaviest pages and calls there are.

Part 1, on the generated 12,000-file corpus: `search "."` (every line matches) with 10 context
lines at limit 100.

Prints, for the release binary in sidecar mode, the peak (VmHWM) and current (VmRSS) resident
memory: after the first page; after walking on to offset 4,900; after 8 such first pages at
once; and after 5, 15 and 30 s idle. Each scenario runs with the window cache on (the default)
and off (every page asks Zoekt anew: the worst case). Raw Zoekt's own answer for the first
window (bytes, seconds) is printed beside them. Asserts nothing.

Part 2, with --heavy URL, a Zoekt on scripts/gen-heavy.py's corpus (400 files of 2,500
one-line functions, indexed one file a shard: answers pass the answer-size bound): each of the
heaviest single calls known, in a fresh sidecar, with its peak (VmHWM) and its resident memory
15 s after it; then 8 different heavy calls at once. Raw Zoekt's time and bytes for the
biggest window a call reads are printed beside them.

    scripts/test.sh --run python3 scripts/bench-memory.py      # servers up, then this
    python3 scripts/bench-memory.py --zoekt http://127.0.0.1:6071 [--bin target/release/zoekt-pager]
    python3 scripts/bench-memory.py --heavy http://127.0.0.1:6075   # part 2 alone
"""
import argparse
import json
import os
import subprocess
import threading
import time
import urllib.request

ARGS = {"query": ".", "limit": 100, "context_lines": 10}


def mib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1]) // 1024
    return -1


class Sidecar:
    def __init__(self, binary, zoekt, env):
        self.proc = subprocess.Popen(
            [binary, "serve", "--http", "127.0.0.1:0"],
            env=dict(os.environ, ZOEKT_URL=zoekt, ZOEKT_PAGER_LOG="warn", **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.url = self.proc.stdout.readline().decode().split()[-1]
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "bench-memory", "version": "1"}})

    def rpc(self, method, params):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        req = urllib.request.Request(self.url, data=body.encode(), headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream"})
        with urllib.request.urlopen(req, timeout=600) as r:
            return json.load(r)

    def page(self, cursor=None):
        args = dict(ARGS, **({"cursor": cursor} if cursor else {}))
        return self.call("search", args)

    def call(self, tool, args, fail=True):
        result = self.rpc("tools/call", {"name": tool, "arguments": args})["result"]
        if result.get("isError"):
            if fail:
                raise SystemExit("error: " + result["content"][0]["text"][:300])
            return {"count": 0, "error": result["content"][0]["text"].split("\n")[0][:90]}
        page = result["structuredContent"]
        page["count"] = rows(page)
        return page

    def memory(self):
        return f"peak {mib(self.proc.pid, 'VmHWM:'):4d} MiB, now {mib(self.proc.pid, 'VmRSS:'):4d} MiB"

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


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


HEAVY = [
    ("search_symbols", {"query": ".", "kinds": ["nosuchkind"], "limit": 1}),
    ("search_symbols", {"query": ".", "kinds": ["nosuchkind"], "context_lines": 10, "limit": 1}),
    ("search", {"query": ".", "context_lines": 10, "limit": 100}),
    ("find_references", {"symbol": "x", "context_lines": 10, "limit": 100}),
    ("files_with_matches", {"query": "heavy", "limit": 100}),
]


def heavy(binary, zoekt):
    body = json.dumps({"Q": "sym:.", "Opts": {"MaxDocDisplayCount": 34,
                                              "ShardMaxMatchCount": 10000}}).encode()
    started = time.time()
    with urllib.request.urlopen(urllib.request.Request(zoekt + "/api/search", data=body),
                                timeout=600) as r:
        size = len(r.read())
    print(f"raw Zoekt, sym:. for 34 files (the biggest window under the default bound): "
          f"{size / 2**20:.1f} MiB in {time.time() - started:.2f} s")
    for tool, args in HEAVY:
        s = Sidecar(binary, zoekt, {})
        started = time.time()
        page = s.call(tool, args, fail=False)
        took = time.time() - started
        peak = mib(s.proc.pid, "VmHWM:")
        time.sleep(15)
        outcome = page.get("error") or f"{page['count']} items"
        print(f"{tool} {json.dumps(args)}: {outcome} in {took:.1f} s, peak "
              f"{peak} MiB, {mib(s.proc.pid, 'VmRSS:')} MiB 15 s after")
        s.stop()
    s = Sidecar(binary, zoekt, {})
    calls = HEAVY + [("search_symbols", {"query": "heavy1", "kinds": ["nosuchkind"], "limit": 1}),
                     ("search", {"query": "return", "context_lines": 10, "limit": 100}),
                     ("search", {"query": "x", "context_lines": 5, "limit": 100}),
                     ("find_references", {"symbol": "int", "limit": 100})]
    started = time.time()
    threads = [threading.Thread(target=s.call, args=(*c, False)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.time() - started
    peak = mib(s.proc.pid, "VmHWM:")
    time.sleep(15)
    print(f"8 different heavy calls at once in {took:.1f} s: peak {peak} MiB, "
          f"{mib(s.proc.pid, 'VmRSS:')} MiB 15 s after")
    s.stop()


def raw_zoekt(zoekt):
    body = json.dumps({"Q": ".", "Opts": {"MaxDocDisplayCount": 113, "NumContextLines": 10,
                                          "ShardMaxMatchCount": 10000,
                                          "MaxWallTime": 10_000_000_000}}).encode()
    started = time.time()
    with urllib.request.urlopen(urllib.request.Request(zoekt + "/api/search", data=body),
                                timeout=600) as r:
        size = len(r.read())
    return size, time.time() - started


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--zoekt", default=os.environ.get("ZOEKT_PAGER_LIVE_BIG_URL"))
    p.add_argument("--bin", default="target/release/zoekt-pager")
    p.add_argument("--heavy", help="a Zoekt on scripts/gen-heavy.py's corpus (part 2)")
    a = p.parse_args()
    if a.heavy:
        heavy(a.bin, a.heavy)
        return
    if not a.zoekt:
        raise SystemExit("no Zoekt: pass --zoekt or run under scripts/test.sh --run")
    size, secs = raw_zoekt(a.zoekt)
    print(f"raw Zoekt, first window (113 files, 10 context lines): {size / 2**20:.1f} MiB in {secs:.2f} s")
    for label, env in [("cache on", {}), ("cache off", {"ZOEKT_PAGER_CACHE_BYTES": "0"})]:
        s = Sidecar(a.bin, a.zoekt, env)
        started = time.time()
        page = s.page()
        print(f"{label}: first page ({page['count']} items) in {time.time() - started:.2f} s: {s.memory()}")
        seen, cursor = page["count"], page.get("next_cursor")
        started = time.time()
        while cursor and seen < 4_900:
            page = s.page(cursor)
            seen += page["count"]
            cursor = page.get("next_cursor")
        print(f"{label}: walked on to offset {seen} in {time.time() - started:.1f} s: {s.memory()}")
        s.stop()

        s = Sidecar(a.bin, a.zoekt, env)
        started = time.time()
        threads = [threading.Thread(target=s.page) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"{label}: 8 first pages at once in {time.time() - started:.1f} s: {s.memory()}")
        slept = 0
        for mark in (5, 15, 30):
            time.sleep(mark - slept)
            slept = mark
            print(f"{label}:   after {mark:2d} s idle: {s.memory()}")
        s.stop()


if __name__ == "__main__":
    main()
