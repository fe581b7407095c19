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
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_stdio import call_once  # noqa: E402


def mcp_call(binary, env, tool, args, timeout):
    """One tools/call over stdio, as a host makes it: (seconds, text of the result)."""
    return call_once(binary, env, tool, args, timeout, client="bench-heavy")

QUERIES = [
    ("search", {"query": "\\b"}),
    ("search", {"query": "(.*){1000}"}),
    ("search", {"query": "[a-z]{1,1000}x"}),
    ("files_with_matches", {"query": ".*.*.*.*q"}),
    ("search_symbols", {"query": "."}),
]


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
