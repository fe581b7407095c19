"""The pager under test: a `zoekt-pager serve --http` sidecar (MCP over HTTP, with the
/metrics that count its Zoekt requests), a call of its command line, and the functions that
read a page (its total, its suggestions, its files, its text).
"""

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

from .common import SIGN


# ---------------------------------------------------------------- the pager

class Sidecar:
    """`zoekt-pager serve --http 127.0.0.1:PORT --cache-bytes 0`: MCP over HTTP, with the
    /metrics that count its Zoekt requests."""

    def __init__(self, binary, url, extra=()):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        env = dict(os.environ, ZOEKT_URL=url, ZOEKT_PAGER_LOG="warn")
        for k in [k for k in env if k.startswith("ZOEKT_PAGER_") and k != "ZOEKT_PAGER_LOG"]:
            del env[k]
        self.base = f"http://127.0.0.1:{self.port}"
        self.p = subprocess.Popen([binary, "serve", "--http", f"127.0.0.1:{self.port}",
                                   "--cache-bytes", "0", *extra], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.next_id = 1
        for _ in range(200):
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=2).read()
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        else:
            raise RuntimeError("the sidecar did not start")

    def call(self, tool, args):
        """(seconds, result) of one tools/call."""
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                           "params": {"name": tool, "arguments": args}}).encode()
        req = urllib.request.Request(self.base + "/mcp", data=body, method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        t = time.perf_counter()
        with urllib.request.urlopen(req, timeout=120) as resp:
            data = resp.read()
        elapsed = time.perf_counter() - t
        msg = json.loads(data)
        if "error" in msg:
            raise RuntimeError(f"{tool} {args}: {msg['error']}")
        return elapsed, msg["result"]

    def requests(self):
        """(Zoekt requests timed by the pager, Zoekt requests its pages counted): totals so far."""
        text = urllib.request.urlopen(self.base + "/metrics", timeout=10).read().decode()
        timed = counted = 0.0
        for line in text.splitlines():
            name, _, value = line.rpartition(" ")
            if name.startswith("zoekt_pager_zoekt_request_seconds_count{"):
                timed += float(value)
            elif name.startswith("zoekt_pager_zoekt_requests_per_page_sum{"):
                counted += float(value)
        return timed, counted

    def counted_call(self, tool, args):
        """(seconds, result, Zoekt requests by /metrics, by the page's own count)."""
        before = self.requests()
        t, r = self.call(tool, args)
        after = self.requests()
        return t, r, round(after[0] - before[0]), round(after[1] - before[1])

    def close(self):
        self.p.terminate()
        self.p.wait()


def cli_call(binary, url, transport, tool, args, timeout):
    cmd = [binary, "--zoekt-url", url, "--zoekt-transport", transport, tool,
           args.get("symbol", args.get("query"))]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZOEKT_PAGER_", "ZOEKT_URL"))}
    t = time.perf_counter()
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        text = out.stdout + out.stderr
    except subprocess.TimeoutExpired:
        text = "no reply (killed)"
    return time.perf_counter() - t, text


def text_of(result):
    return "\n".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def total_of(sc):
    """(value, kind) of a page's total: kind "" exact, "about", "at_least"."""
    for key, kind in (("total", ""), ("total_estimate", "about"), ("total_at_least", "at_least")):
        if key in sc:
            return sc[key], kind
    return None, "?"


def total_text(value, kind):
    return f"{SIGN[kind] if kind else ''}{value}"


def ways_of(result, tool):
    """The page's suggestions: [(arg, value, key, count)], and its note."""
    sc = result.get("structuredContent") or {}
    narrow = sc.get("narrow") or {}
    out = []
    if narrow:
        # {ARG: base, "add": [[filter, count], ...], "count": KEY}: each value is the base, a
        # space, and the filter, as the schema tells a model to write it.
        arg, base = narrow_arg(narrow)
        for added, count in narrow["add"]:
            out.append((arg, call_value(base, added), narrow["count"], count))
    return out, sc.get("narrow_note", "")


def narrow_arg(narrow):
    """(the argument each narrowed call sets, what its value starts with)."""
    arg = next(k for k in narrow if k not in ("add", "count", "uncounted"))
    return arg, narrow[arg]


def call_value(base, added):
    return f"{base} {added}" if base and added else base or added


def uncounted_of(result):
    """The page's ways into what its census did not reach (`narrow.uncounted`: runs of later
    repositories, or the rest beside the directories counted), with no count: [(arg, value)]."""
    narrow = (result.get("structuredContent") or {}).get("narrow") or {}
    if not narrow.get("uncounted"):
        return []
    arg, base = narrow_arg(narrow)
    return [(arg, call_value(base, added)) for added in narrow["uncounted"]]


def kind_of(key):
    return "about" if key.endswith("_about") else "at_least" if key.endswith("_at_least") else ""


def page_files(sc):
    """(repo, path) of every item on a structured page, whatever its grouping."""
    found = set()

    def walk(part):
        if not isinstance(part, dict):
            return
        fields = part.get("fields") or []
        for g in part.get("files") or []:
            found.add((g[0], g[1]))
        for g in part.get("repos") or []:
            for row in g[1]:
                found.add((g[0], row[0] if isinstance(row, list) else row))
        if part.get("rows"):
            flat = [f for f in fields if isinstance(f, str)]
            if "repo" in flat and "path" in flat:
                ri, pi = flat.index("repo"), flat.index("path")
                for row in part["rows"]:
                    found.add((row[ri], row[pi]))
        for key in ("definitions", "references"):
            walk(part.get(key))

    walk(sc)
    return found


def suggestions_text(text):
    """The text form's 'Ways to narrow' group."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Ways to narrow"):
            group = [line]
            for more in lines[i + 1:]:
                if not more.startswith("  "):
                    break
                group.append(more)
            return "\n".join(group)
    return "(no suggestions)"


def summary(text):
    """The page's total line and its first warning, or an error's first line."""
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        return "(nothing)"
    if lines[0].startswith(("Error", "error")) or "no reply" in lines[0]:
        return lines[0][:140]
    footer = next((l for l in lines if l.startswith(("Items ", "No items", "Count only"))), "")
    footer = footer.split(" Next:")[0][:90]
    warning = next((l for l in lines if l.startswith("Warning")), "")[:100]
    return f"{footer} {warning}".strip()
