#!/usr/bin/env python3
"""Queries Zoekt cannot finish: how long each takes and what it says, over MCP and the CLI.

    python3 scripts/bench-heavy.py URL [--binary target/release/zoekt-pager] [--transport json,grpc]

For each heavy query (`search '\\b'`, which matches at every word boundary, and regular
expressions that make Zoekt work hard), over each transport, it runs the release binary
twice: as an MCP server over stdio (initialize, then one tools/call, as a host does) and as
the command line. It prints a markdown table: seconds, and the page's total line and first
warning, or the error. The target (issue "Zoekt's own wire"): each ends within Zoekt's wall
time (--max-wall-time-ms, 10 s by default) + 5 s, and none says "total about 0".
Needs only Python's standard library.
"""

import argparse
import json
import os
import subprocess
import threading
import time

QUERIES = [
    ("search", {"query": "\\b"}),
    ("search", {"query": "(.*){1000}"}),
    ("search", {"query": "[a-z]{1,1000}x"}),
    ("files_with_matches", {"query": ".*.*.*.*q"}),
    ("search_symbols", {"query": "."}),
]


def mcp_call(binary, env, tool, args, timeout):
    """One tools/call over stdio, as a host makes it: (seconds, text of the result)."""
    proc = subprocess.Popen(
        [binary, "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    # A server that never answers is killed at the timeout: its reply reads as "no reply".
    killer = threading.Timer(timeout, proc.kill)
    killer.start()

    def send(msg):
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()

    def reply(want_id):
        while True:
            line = proc.stdout.readline()
            if not line:
                return None
            msg = json.loads(line)
            if msg.get("id") == want_id:
                return msg

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench-heavy", "version": "1"}}})
    reply(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    started = time.monotonic()
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": tool, "arguments": args}})
    msg = reply(2)
    took = time.monotonic() - started
    killer.cancel()
    proc.kill()
    proc.wait()
    if msg is None:
        return took, "no reply"
    if "error" in msg:
        return took, "JSON-RPC error: " + msg["error"].get("message", "")
    text = "\n".join(c.get("text", "") for c in msg["result"].get("content", []))
    return took, text


def cli_call(binary, env, tool, args, timeout):
    cmd = [binary, tool]
    if tool == "find_references":
        cmd.append(args["symbol"])
    else:
        cmd.append(args["query"])
    started = time.monotonic()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    return time.monotonic() - started, (out.stdout + out.stderr)


def summary(text):
    """The page's total line and its first warning, or the error's first line."""
    lines = [l for l in text.splitlines() if l.strip()]
    if lines and lines[0].startswith("Error "):
        return lines[0][:140]
    footer = next((l for l in lines if l.startswith(("Items ", "No items", "Count only"))), "")
    footer = footer.split(" Next:")[0][:90]
    warning = next((l for l in lines if l.startswith("Warning: ")), "")[:80]
    return f"{footer} {warning}".strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--binary", default="target/release/zoekt-pager")
    ap.add_argument("--transport", default="json,grpc")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    print("| query | transport | over | seconds | says |")
    print("|---|---|---|---|---|")
    for transport in a.transport.split(","):
        env = dict(os.environ, ZOEKT_URL=a.url, ZOEKT_PAGER_ZOEKT_TRANSPORT=transport)
        for tool, args in QUERIES:
            for over, run in (("MCP", mcp_call), ("CLI", cli_call)):
                took, text = run(a.binary, env, tool, args, a.timeout)
                says = summary(text).replace("|", "\\|")
                bad = " **about 0**" if "about 0" in text else ""
                shown = json.dumps(args["query"])
                print(f"| {tool} `{shown}` | {transport} | {over} | {took:.1f} | {says}{bad} |",
                      flush=True)


if __name__ == "__main__":
    main()
