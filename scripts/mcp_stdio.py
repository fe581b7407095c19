"""MCP over stdio as a host speaks it, for the project's benches and checkers (stdlib only).

`Session` starts `zoekt-pager serve`, initializes it and sends requests one at a time;
`call_once` makes one tools/call on a fresh server, killed at a timeout, as a host's first
call would be. Import it from a script of this folder:

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from mcp_stdio import Session, call_once
"""

import json
import subprocess
import threading
import time


def text_of(result):
    """The text blocks of a tools/call result, joined."""
    return "\n".join(c.get("text", "") for c in result.get("content", []))


class Session:
    """`BINARY serve` over stdio, initialized; `stderr` is where its log goes."""

    def __init__(self, binary, env, client="zoekt-pager-script", stderr=subprocess.DEVNULL,
                 initialize=True):
        self.p = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=stderr, env=env, text=True)
        self.next_id = 1
        self.client = client
        if initialize:
            self.initialize()

    def initialize(self):
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": self.client, "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def reply(self, want):
        """The message answering request `want`; None when the server is gone."""
        while True:
            line = self.p.stdout.readline()
            if not line:
                return None
            msg = json.loads(line)
            if msg.get("id") == want:
                return msg

    def request(self, method, params):
        """The result of one request (a JSON-RPC error raises)."""
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        msg = self.reply(i)
        if msg is None:
            raise RuntimeError(f"{method}: the server closed its output")
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error'].get('message', '')}")
        return msg["result"]

    def timed(self, tool, args):
        """(seconds, result) of one tools/call."""
        t = time.perf_counter()
        r = self.request("tools/call", {"name": tool, "arguments": args})
        return time.perf_counter() - t, r

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def call_once(binary, env, tool, args, timeout, client="zoekt-pager-script"):
    """One tools/call on a fresh server, as a host makes it: (seconds, text). A server that
    does not answer within `timeout` is killed; its text is then "no reply"."""
    s = Session(binary, env, client, initialize=False)
    killer = threading.Timer(timeout, s.p.kill)
    killer.start()
    started = time.perf_counter()
    try:
        s.initialize()
        started = time.perf_counter()
        _, result = s.timed(tool, args)
        text = text_of(result)
    except (RuntimeError, BrokenPipeError) as e:
        text = "no reply" if not isinstance(e, RuntimeError) or "closed" in str(e) \
            else f"JSON-RPC error: {e}"
    finally:
        took = time.perf_counter() - started
        killer.cancel()
        s.p.kill()
        s.p.wait()
    return took, text
