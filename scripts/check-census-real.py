#!/usr/bin/env python3
"""One cheap census of the whole result (issue 50), measured and checked on REAL code.

`scripts/real-corpora.sh check` runs this against its two corpora (`many`: 678 real
repositories; `mono`: the same trees as one 90,898-file repository) with the release binary,
at the pager's default settings (gRPC, census wall time 3 s, max wall time 10 s, per-shard
cap 10,000, limit 30) unless a check says otherwise. Every expected answer comes from raw
Zoekt (`/api/search`, JSON, urllib), never from the pager. The must-shows:

1. Page 1 of 10 broad queries per content tool, the broadest a model types among them (`.`,
   `func`, `import`, `return`, `the`; `file:.`-like path queries; symbols): at most 2 Zoekt
   requests, and at most 1 more than the same page with suggestions off (the sidecar's
   /metrics, `zoekt_pager_zoekt_request_seconds_count`, and the page's own count,
   `zoekt_pager_zoekt_requests_per_page_sum`, per call), and a p50 time within 1.1 x the
   slower of raw Zoekt's page window (34 files, the tool's query) and raw Zoekt's census
   request (`type:file` + the tool's census query, 40,000 files, 3 s), all three timed in
   the same rounds, the window cache off (`serve --http ... --cache-bytes 0`).
2. The census's coverage (files it read against Zoekt's whole count of matching files) and
   every suggestion's count against raw Zoekt's count of the narrowed call's files (`type:file`
   of its census query, no caps, 20 s): equal where the counts say exact, within [2/3, 1.5]
   where about, at most it where at least; undecided where raw Zoekt's own count is cut and
   the bound does not settle it. With it, what the issue asks of the ways themselves (5 to 8;
   no directory offered whose parent level was skipped: the parent holds more than half of
   the result and the ways inside it name 2/3 of it, or it is offered too; no refinement that
   repeats the `file:` filter it refines; no directory of 5% of the census's files that no
   suggestion selects a file of).
3. `files_with_matches .`, `search (?s).`, `search a b` and `search \\b`: within Zoekt's wall
   time + 5 s, over gRPC and JSON, over MCP stdio and the command line.
4. Reach: targets chosen before running (TARGETS); from a broad query of each tool whose
   result holds the target, a model that follows only the suggestion selecting the target
   (the smallest count among those that do) reaches it within 3 calls.
5. count_only of a broad query per tool: p50 at most 2 x raw Zoekt's census request.
It also keeps what scripts/check-narrow-real.py checked (that script is gone): at least 3
suggestions on page 1, each narrowed call non-empty and smaller than the original, the top one
cutting at least 3 times, no `repo:` on the monorepo, at most 600 characters of JSON, and none
on a narrow result. And it prints, per corpus and tool, one page's suggestions as a model reads
them.

Exit status 1 when a check fails (0 with --report-only). Progress goes to stderr. Usage:
  scripts/check-census-real.py --bin BIN --zoekt many=URL --zoekt mono=URL
      [--rounds 3] [--count-rounds 5] [--only 1,2,3,4,5] [--markdown OUT.md] [--report-only]
      [--state STATE.json] [--tools search,...] [--queries N]
  scripts/check-census-real.py --merge STATE.json... --markdown OUT.md   (runs side by side)
Python 3, standard library only.
"""

import argparse
import functools
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_stdio import call_once  # noqa: E402

LIMIT = 30
# A result is broad when it holds more than this many items (3 pages at limit 30).
BROAD = 3 * LIMIT
# The raw requests of must-show 1 (src/engine/fetch.rs first_window(31) = 34; the census of
# src/engine/survey.rs: CENSUS_FILES files, --census-wall-time-ms).
WINDOW_OPTS = {"MaxDocDisplayCount": 34, "ShardMaxMatchCount": 10000, "MaxWallTime": 10_000_000_000}
CENSUS_OPTS = {"MaxDocDisplayCount": 40000, "ShardMaxMatchCount": 10000, "MaxWallTime": 3_000_000_000}
# Zoekt's whole count: no cap binds, and a wall time of 20 s (a `.` regex takes minutes over
# every file: such a count is then itself cut, a lower bound, and a count held against it is
# checked only where the bound decides). One file displayed: FileCount is the same, the answer
# small.
WHOLE_OPTS = {"MaxDocDisplayCount": 1, "ShardMaxMatchCount": 10_000_000,
              "TotalMaxMatchCount": 100_000_000, "MaxWallTime": 20_000_000_000}
# The pager's own effort (its defaults), for counts of what a call of it can see.
PAGER_OPTS = {"ShardMaxMatchCount": 10000, "MaxWallTime": 10_000_000_000}
# Must-show 3: Zoekt's wall time (the pager's default --max-wall-time-ms) + 5 s.
HEAVY_BOUND = 10.0 + 5.0

TOOLS = ["search", "search_symbols", "files_with_matches", "search_files", "find_references"]

# Must-show 1 and 2: ten queries per tool, broad on both corpora and fit for the tool (the
# symbol for find_references). Chosen by what the tools are for, then checked broad with raw
# Zoekt (total > 90 at limit 30 on each corpus).
QUERIES = {
    "search": [".", "func", "import", "return", "the", "error", "func main", "printf", "a b",
               "TODO"],
    "search_symbols": [".", "new", "get", "init", "New", "parse", "String", "test", "Error",
                       "main"],
    "files_with_matches": [".", "func", "import", "return", "the", "error", "func main",
                           "printf", "TODO", "Copyright"],
    "search_files": [".", "/", "test", "\\.go$", "\\.py$", "internal/", "src/", "\\.h$",
                     "_test\\.go$", "\\.rs$"],
    "find_references": ["err", "len", "self", "nil", "ctx", "String", "Error", "int", "data",
                        "name"],
}
# Must-show 4 starts from the first of these whose result holds the target (raw Zoekt): the
# queries a model types first for what it looks for, the broadest (`.`) last, since its census
# is the thinnest (Zoekt's wall time cuts a `.` census to a few hundred files).
REACH_QUERIES = {
    "search": ["func main", "printf", "a b", "TODO", "error", "return nil", "import",
               "#include", "def __init__", "fn new", "the", "return", "if", "for"],
    "search_symbols": ["new", "get", "init", "New", "parse", "String", "test", "read", "Error",
                       "main", "e", "s", "_", "."],
    "files_with_matches": ["func main", "printf", "TODO", "error", "Copyright", "import",
                           "license", "fmt.Errorf", "unsafe", "#include", "the", "return", "if",
                           "for"],
    "search_files": ["test", "util", "\\.h$", "\\.go$", "\\.py$", "internal/", "src/",
                     "\\.md$", "_test\\.go$", "\\.rs$", "\\.js$", "\\.c$", "\\.ts$", "/"],
    "find_references": ["err", "len", "self", "nil", "ctx", "String", "Error", "int", "data",
                        "name", "the", "if", "return", "for", "i"],
}
# Must-show 5: one broad query per tool, as a model would count it first.
COUNT_QUERY = {"search": "func main", "search_symbols": "new", "files_with_matches": "func main",
               "search_files": "test", "find_references": "err"}
# Must-show 3: (tool, query, corpora). `a b` is the issue's `many` case; it runs on both.
HEAVY = [("files_with_matches", "."), ("search", "(?s)."), ("search", "a b"), ("search", "\\b")]
# Narrow results: one page or less, no suggestion.
NARROW = [("search", {"query": "zoektNeverWritesThis"}),
          ("search_symbols", {"query": "^NewTicker$ lang:Go file:time/"})]

# Must-show 4: targets chosen BEFORE running, each for what makes it hard to reach: directories
# of different sizes and depths, one file among many alike, a directory's own files beside its
# subdirectories. (repo, path) per corpus; `mono` is the one repository `monorepo`.
_TARGETS = [
    # A deep file of a big tree: go-toolchain holds 14,268 files, net/http a few hundred.
    ("go-toolchain", "go-toolchain", "src/net/http/server.go"),
    # A top-level header of /usr/include, beside 100 subdirectories: the directory's own files.
    ("c-include", "c-include", "stdio.h"),
    # One of 9 files of a small folder deep in one of 349 crates.
    ("tokio-1.54.1", "rust-crates/tokio-1.54.1", "src/task/spawn.rs"),
    # One Python standard library among 9 versions holding nearly the same files.
    ("python-3.12", "python/3.12", "asyncio/tasks.py"),
    # A scoped npm package's build output, four folders down.
    ("npm-@modelcontextprotocol-sdk", "npm/@modelcontextprotocol/sdk", "dist/esm/server/index.js"),
    # A Go module's folder of 382 mostly generated files.
    ("x-sys@v0.47.0", "go-modules/x-sys@v0.47.0", "unix/syscall_linux.go"),
    # One small file among 2,047 of one folder.
    ("go-toolchain", "go-toolchain", "test/fixedbugs/issue10047.go"),
    # One of 571 headers of a subdirectory of /usr/include.
    ("c-include", "c-include", "linux/if_ether.h"),
    # A module's top-level file, beside its many subfolders.
    ("grpc@v1.82.1", "go-modules/grpc@v1.82.1", "server.go"),
    # The oldest Python's copy of a module every version has.
    ("python-2.7", "python/2.7", "json/decoder.py"),
    # A Rust file two folders down in a big crate.
    ("regex-automata-0.4.19", "rust-crates/regex-automata-0.4.19", "src/meta/regex.rs"),
    # A very common file name (print.go) in a mid-size folder of the Go tree.
    ("go-toolchain", "go-toolchain", "src/fmt/print.go"),
]
TARGETS = {
    "many": [(repo, path) for repo, _, path in _TARGETS],
    "mono": [("monorepo", f"{folder}/{path}") for _, folder, path in _TARGETS],
}

SIGN = {"": "=", "about": "~", "at_least": ">="}


def say(*parts):
    print(*parts, file=sys.stderr, flush=True)


def ms(xs):
    return statistics.median(xs) * 1000 if xs else float("nan")


# ---------------------------------------------------------------- raw Zoekt (JSON, urllib)

def raw(url, q, opts, timeout=300):
    """One raw /api/search: (seconds, Result, bytes)."""
    body = json.dumps({"Q": q, "Opts": opts}).encode()
    req = urllib.request.Request(url + "/api/search", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        data = resp.read()
    elapsed = time.perf_counter() - t
    doc = json.loads(data)
    if "Error" in doc:
        raise RuntimeError(f"raw Zoekt refused {q!r}: {doc['Error']}")
    return elapsed, doc["Result"], len(data)


def raw_at_once(url, requests):
    """Seconds until every one of `requests` (query, opts), sent at once, is answered."""
    errors = []

    def one(q, opts):
        try:
            raw(url, q, opts)
        except Exception as e:  # noqa: BLE001 - the timing still stands; said below
            errors.append(e)

    threads = [threading.Thread(target=one, args=r) for r in requests]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]
    return time.perf_counter() - t


def cut(r):
    """Zoekt left files unsearched (its caps or its time)."""
    return bool(r.get("FilesSkipped") or r.get("ShardsSkipped") or r.get("Crashes"))


_WHOLE = {}


def whole_files(url, q):
    """Zoekt's whole count of the files `q` matches: `type:file q`, no cap, no wall time.
    (count, cut, seconds), kept per query."""
    key = (url, q)
    if key not in _WHOLE:
        t, r, _ = raw(url, "type:file " + q, WHOLE_OPTS)
        _WHOLE[key] = (r["FileCount"], cut(r), t)
    return _WHOLE[key]


def count_items(url, tool, q, symbol=None):
    """The tool's items in raw Zoekt's answer for `q` under the pager's effort (for a count in
    items of a line tool): matching lines, symbol definitions, or definition and usage lines."""
    _, r, _ = raw(url, q, dict(PAGER_OPTS, MaxDocDisplayCount=100_000))
    n = 0
    for f in r["Files"] or []:
        lines = f.get("LineMatches") or []
        if tool == "search":
            n += len({m["LineNumber"] for m in lines})
        elif tool == "search_symbols":
            n += len({(m["LineNumber"], fr["LineOffset"]) for m in lines
                      for fr in m.get("LineFragments") or [] if fr.get("SymbolInfo")})
        else:
            n += len({m["LineNumber"] for m in lines if not m["FileName"]})
    return n


# ---------------------------------------------------------------- the tools' queries
# Written from the tools' documented queries (README, docs/tools.md, src/zoekt/query.rs), for
# the plain queries this script sends: no `or`, no parentheses.

FILTER_PREFIXES = ("lang:", "repo:", "r:", "file:", "f:", "case:", "branch:", "b:", "archived:",
                   "fork:", "public:", "meta:")


@functools.lru_cache(maxsize=4096)
def tokens(text):
    """Zoekt's tokens: runs of non-space, a double-quoted part (with its escapes) kept whole."""
    out, cur, quoted, esc = [], "", False, False
    for c in text:
        if quoted:
            cur += c
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                quoted = False
        elif c.isspace():
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += c
            if c == '"':
                quoted = True
    if cur:
        out.append(cur)
    return tuple(out)


def is_filter(token):
    return token.lstrip("-").startswith(FILTER_PREFIXES) if token.startswith("-") else \
        token.startswith(FILTER_PREFIXES)


def escape_regex(text):
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$" else c for c in text)


def refs_queries(symbol, filters=""):
    kept = [t for t in tokens(filters) if not t.startswith("case:")]
    esc = escape_regex(symbol)
    word = lambda c: c.isalnum() or c == "_"
    lead = "\\b" if word(symbol[0]) else ""
    tail = "\\b" if word(symbol[-1]) else ""
    pre = " ".join(["case:yes"] + kept)
    return f"{pre} sym:^{esc}$", f"{pre} (sym:^{esc}$ or content:{lead}{esc}{tail})"


def tool_queries(tool, value, symbol=None):
    """(the page's window queries, the census query) of a call of `tool` whose narrowed
    argument (`query`, or `filters` for find_references) is `value`."""
    toks = tokens(value)
    filters = [t for t in toks if is_filter(t)]
    patterns = [t for t in toks if not is_filter(t)]
    if tool == "search":
        q = " ".join(toks)
        return [q], q
    if tool == "search_symbols":
        (pattern,) = patterns
        pattern = pattern[4:] if pattern.startswith("sym:") else pattern
        q = " ".join(filters + [f"sym:{pattern}"])
        return [q], q
    if tool == "search_files":
        atoms = list(filters) + ([] if patterns else ["file:."])
        atoms += [f"-file:{p[1:]}" if p.startswith("-") else f"file:{p}" for p in patterns]
        q = " ".join(atoms)
        return [q], q
    if tool == "files_with_matches":
        q = " ".join(toks)
        positive = [p if p.startswith(("content:", "c:", "sym:")) else f"c:{p}"
                    for p in patterns if not p.startswith("-")]
        census = f"{q} {positive[0]}" if len(positive) == 1 else f"{q} ({' or '.join(positive)})"
        return [q], census
    definitions, usages = refs_queries(symbol, value)
    return [definitions, usages], usages


def census_request(tool, windows, census_q):
    """The query of the census request the pager sends: names only (`type:file`) of the census
    query; for find_references, written to carry its definitions' window too, which a first
    page then does not ask for on its own (`zoekt::query::census_carrying`)."""
    if tool == "find_references":
        # The usages without their sym: atom: with the definitions, the usages' files.
        words = re.sub(r"\(sym:\^.*?\$ or (content:.*)\)$", r"\1", census_q)
        assert words != census_q, census_q
        return f"({windows[0]}) or (type:file ({words}))"
    return "type:file " + census_q


def page_windows(tool, windows):
    """The windows a first page asks for beside its census: find_references' definitions come
    with the census."""
    return windows[1:] if tool == "find_references" else windows


def base_queries(tool, query):
    """(window queries, census query) of a broad call: `query` is find_references' symbol."""
    if tool == "find_references":
        return tool_queries(tool, "", symbol=query)
    return tool_queries(tool, query)


def call_args(tool, query):
    return {"symbol": query} if tool == "find_references" else {"query": query}


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


# ---------------------------------------------------------------- must-shows 1 and 2

def check_pages(a, name, url, side, plain, out, failures):
    """Must-shows 1 and 2, and the standing checks of check-narrow-real.py, on one corpus.
    `plain` is a sidecar with suggestions off: its page 1 (no census) is timed beside, to show
    where page 1's time goes (not checked)."""
    rng = random.Random(50)
    for tool in TOOLS:
        for qi, query in enumerate(QUERIES[tool]):
            args = dict(call_args(tool, query), limit=LIMIT)
            windows, census_q = base_queries(tool, query)
            t_page, t_plain, t_win, t_census, reqs, errors = [], [], [], [], [], []
            plain_reqs, t_both = [], []
            first = census_raw = None
            label = f"{name} {tool} {json.dumps(query)}"
            for _ in range(a.rounds):
                ops = ["page", "plain", "window", "census", "both"]
                rng.shuffle(ops)
                for op in ops:
                    if op == "page":
                        t, r, timed, counted = side.counted_call(tool, args)
                        t_page.append(t)
                        reqs.append((timed, counted))
                        if r.get("isError"):
                            errors.append(text_of(r).splitlines()[0][:200])
                        else:
                            first = first or r
                    elif op == "plain":
                        t, _, timed, counted = plain.counted_call(tool, args)
                        t_plain.append(t)
                        plain_reqs.append((timed, counted))
                    elif op == "both":
                        # Raw Zoekt asked for the window(s) and the census at once, as the pager
                        # asks: on a machine whose CPUs both searches need, the slower of the
                        # two alone is no bound for the pair.
                        t_both.append(raw_at_once(url, [(q, WINDOW_OPTS) for q in page_windows(tool, windows)]
                                                  + [(census_request(tool, windows, census_q), CENSUS_OPTS)]))
                    elif op == "window":
                        t_win.append(max(raw(url, q, WINDOW_OPTS)[0] for q in page_windows(tool, windows)))
                    else:
                        t, r, size = raw(url, census_request(tool, windows, census_q), CENSUS_OPTS)
                        t_census.append(t)
                        census_raw = census_raw or (r, size)
            for e in errors:
                failures.append(("1", f"{label}: page 1 failed: {e}"))
            sc = first["structuredContent"] if first else {}
            total, tkind = total_of(sc)
            bound = 1.1 * max(ms(t_win), ms(t_census))
            max_req = max(max(x) for x in reqs)
            row1 = dict(corpus=name, tool=tool, query=query, total=total_text(total, tkind),
                        broad=total is not None and total > BROAD, page=ms(t_page),
                        plain=ms(t_plain), window=ms(t_win), census=ms(t_census), bound=bound,
                        both=ms(t_both),
                        timed=max(x[0] for x in reqs), counted=max(x[1] for x in reqs),
                        plain_req=max(max(x) for x in plain_reqs), errors=len(errors))
            # The census costs at most one request beyond the page's own (as the same page with
            # suggestions off makes it), and page 1 at most 2 in all (the words; a
            # find_references page takes its definitions from the census).
            row1["extra"] = max_req - row1["plain_req"]
            row1["ok_req"] = max_req <= 2 and row1["extra"] <= 1
            row1["ok_time"] = row1["page"] <= bound
            row1["ok_both"] = row1["page"] <= 1.1 * row1["both"]
            out["ms1"].append(row1)
            if first is None:
                continue
            if not row1["broad"]:
                failures.append(("1", f"{label}: not broad (total {row1['total']}): the query list needs another"))
            if not row1["ok_req"]:
                failures.append(("1", f"{label}: page 1 made {max_req} Zoekt requests "
                                      f"(/metrics {row1['timed']}, page's own count {row1['counted']}; "
                                      f"{row1['plain_req']} with suggestions off); at most 2, "
                                      f"and at most 1 for the census, expected"))
            if not row1["ok_time"]:
                failures.append(("1", f"{label}: page 1 p50 {row1['page']:.0f} ms > {bound:.0f} ms "
                                      f"(1.1 x max(raw window {row1['window']:.0f}, raw census {row1['census']:.0f}))"))
            say(f"[1] {label}: total {row1['total']}, requests {row1['timed']}/{row1['counted']} "
                f"(off: {row1['plain_req']}), page "
                f"{row1['page']:.0f} ms (suggestions off {row1['plain']:.0f} ms), raw window {row1['window']:.0f} ms, census {row1['census']:.0f} ms, both at once {row1['both']:.0f} ms "
                f"-> {'ok' if row1['ok_req'] and row1['ok_time'] else 'FAIL'}")
            if "2" in a.only:
                coverage(a, name, url, tool, query, first, census_q, census_raw, out, failures)
            if query == COUNT_QUERY.get(tool):
                out["examples"].append((name, tool, query, suggestions_text(text_of(first))))
    for tool, args in NARROW:
        if tool not in TOOLS:
            continue
        _, r = side.call(tool, dict(args, limit=LIMIT))
        if (r.get("structuredContent") or {}).get("narrow"):
            failures.append(("old", f"{name} {tool} {args}: a narrow result got suggestions"))


def count_holds(kind, stated, held, held_cut):
    """Whether a stated count of `kind` holds against raw Zoekt's count `held`: True, False, or
    None when raw Zoekt's own count was cut (a lower bound) and does not decide it."""
    if kind == "at_least":
        # The truth is at least `held`: a stated count at most it holds whatever the rest.
        return True if stated <= held else (None if held_cut else False)
    if held_cut:
        return None
    if kind == "about":
        return held > 0 and 2 / 3 <= stated / held <= 1.5
    return stated == held


def dir_atoms(value):
    """The `file:^DIR/` atoms (positive, anchored, naming a directory) of a call's argument."""
    return [t[len("file:^"):] for t in tokens(value) if t.startswith("file:^") and t.endswith("/")]


def repeated_refinement(value):
    """A `file:^A/` atom beside a `file:^A/B/` one: the refinement repeats what it refines."""
    dirs = dir_atoms(value)
    return [(x, y) for x in dirs for y in dirs if x != y and y.startswith(x)]


def named_inside(ways, pfilt, pdir):
    """The files the ways inside the part `pfilt` (directory `pdir`) hold: its subdirectories,
    its own files and the runs of names in it (`file:^DIR/[a-cA-C]`), in the same repository."""
    prepo = [t for t in tokens(pfilt) if t.startswith("repo:")]
    inside = [x for x in ways if x["unit"] == "files"
              and [t for t in tokens(x["filt"]) if t.startswith("repo:")] == prepo
              and any(t[len("file:^"):].startswith(pdir) for t in tokens(x["filt"])
                      if t.startswith("file:^"))
              and x["filt"] != pfilt]
    return sum(x["held"] for x in inside)


def parent_filter(filt):
    """The part one level up of a directory suggestion's filter (`repo:^r$ file:^a/b/` ->
    `repo:^r$ file:^a/`, `file:^a/` -> None: the top, the result itself or its repository;
    a directory's own files `file:^a/ -file:^a/.+/` -> `file:^a/`), as (filter, directory)."""
    toks = tokens(filt)
    repo = [t for t in toks if t.startswith("repo:")]
    own = [t for t in toks if t.startswith("-file:^") and t.endswith(".+/")]
    dirs = [t for t in toks if t.startswith("file:^") and t.endswith("/")]
    if len(dirs) != 1 or len(toks) != len(repo) + len(own) + 1:
        return None
    d = dirs[0][len("file:^"):]
    if own:
        return " ".join(repo + ["file:^" + d]), d
    # One level up: strip the last `name/` (a name may hold escaped marks, never a `/`).
    up = d[:-1].rpartition("/")[0]
    if not up:
        return (" ".join(repo), "") if repo else None
    return " ".join(repo + ["file:^" + up + "/"]), up + "/"


def unreached_parts(files, ways, several_repos):
    """From the census's own list of files (raw Zoekt): each directory holding at least 5% of
    them that no suggestion selects a single file of (a model following only the suggestions
    cannot get there), biggest first, as (name, files)."""
    n = len(files)
    if not n or not ways:
        return []
    parts = {}
    picked = set()
    for f in files:
        repo, path, lang = f["Repository"], f["FileName"], f.get("Language", "")
        chosen = any(selects(v, repo, path, lang) for _, v, _, _ in ways)
        segs = path.split("/")[:-1]
        names = ([repo] if several_repos else []) + [
            (repo + ":" if several_repos else "") + "/".join(segs[:i + 1]) + "/" for i in range(len(segs))]
        for name in names:
            parts[name] = parts.get(name, 0) + 1
            if chosen:
                picked.add(name)
    big = [(k, v) for k, v in parts.items() if v >= 0.05 * n and k not in picked and v < n]

    def inside(k, o):
        return k != o and k.startswith(o if o.endswith("/") else o + ":")

    # Only the outermost: a directory inside an unreached one says nothing more.
    big = [(k, v) for k, v in big if not any(inside(k, o) for o, _ in big)]
    return sorted(big, key=lambda kv: -kv[1])


UNREACHED = "no suggestion selects any of them"


def unreached_failures(row):
    """A part no suggestion reaches is a failure where raw Zoekt's census is whole: a census Zoekt
    cut holds whichever files its shards reached by the wall time, not the pager's."""
    if row["census_cut"] or row["census_read"] < row["census_count"]:
        return []
    label = f"{row['corpus']} {row['tool']} {json.dumps(row['query'])}"
    return [("levels", f"{label}: {part} holds {n} of the census's {row['census_read']} files "
                       f"({n / row['census_read']:.0%}); {UNREACHED}") for part, n in row["unreached"]]


def coverage(a, name, url, tool, query, first, census_q, census_raw, out, failures):
    """Must-show 2 for one page 1: the census's coverage, and each suggestion's count against
    raw Zoekt's count of the narrowed call's files. With it, what the issue asks of the ways
    themselves: 5 to 8 of them; a directory's parent level offered, or holding more than half of
    the result (the list goes down through it), and named too when the ways inside it leave more
    than a third of it unnamed; no refinement repeating what it refines; no large part of the
    result (5% of the census's files) that no suggestion selects a file of."""
    label = f"{name} {tool} {json.dumps(query)}"
    r_census, census_bytes = census_raw
    census_files = r_census["Files"] or []
    census_read = len(census_files)
    whole, whole_cut, whole_t = whole_files(url, census_q)
    _, r_content, _ = raw(url, base_queries(tool, query)[0][-1], dict(PAGER_OPTS, MaxDocDisplayCount=1))
    ways, note = ways_of(first, tool)
    m = re.search(r"counted in (\d+) of (\d+) matching files", note)
    row = dict(corpus=name, tool=tool, query=query, census_read=census_read,
               census_count=r_census["FileCount"], census_cut=cut(r_census),
               census_mb=census_bytes / 1e6, whole=whole, whole_cut=whole_cut,
               content_files=r_content["FileCount"], content_cut=cut(r_content),
               note_read=m.group(0) if m else "", ways=[], n_ways=len(ways))
    row["unit"] = "/".join(sorted({k.split("_")[0] for _, _, k, _ in ways})) or "-"
    kinds = {kind_of(k) for _, _, k, _ in ways}
    row["kind"] = "/".join(sorted(SIGN[k] for k in kinds)) if kinds else "-"
    sc = first["structuredContent"]
    chars = len(json.dumps({"narrow": sc.get("narrow", {}), "narrow_note": note},
                           separators=(",", ":"), ensure_ascii=False)) if ways else 0
    row["chars"] = chars
    if len(ways) < 3:
        failures.append(("old", f"{label}: {len(ways)} suggestions on page 1 (at least 3 expected)"))
    elif len(ways) < 5:
        row["few"] = True
    if chars > 600:
        failures.append(("old", f"{label}: {chars} characters of suggestions JSON"))
    for i, (arg, value, key, stated) in enumerate(ways):
        kind = kind_of(key)
        _, narrowed_census = tool_queries(tool, value, symbol=query)
        held_cut = False
        if key.startswith("results") and tool in ("search", "search_symbols", "find_references"):
            # The page counted its own items (no census): lines, symbols or references.
            windows, _ = tool_queries(tool, value, symbol=query)
            held = count_items(url, tool, windows[-1], symbol=query)
            unit = "items"
        else:
            held, held_cut, _ = whole_files(url, narrowed_census)
            unit = "files"
        ratio = stated / held if held else float("inf")
        ok = count_holds(kind, stated, held, held_cut)
        filt = value
        base = query if arg == "query" else ""
        if base and value.startswith(base + " "):
            filt = value[len(base) + 1:]
        row["ways"].append(dict(filt=filt, key=key, stated=stated, held=held, held_cut=held_cut,
                                ratio=ratio, ok=ok, unit=unit))
        if ok is False:
            want = {"": "exactly", "about": "within [2/3, 1.5] of", "at_least": "at most"}[kind]
            failures.append(("2", f"{label}: suggestion {arg}={json.dumps(value)} says {key}={stated}; "
                                  f"raw Zoekt: the narrowed call holds {held} {unit} (expected {want} that)"))
        if name == "mono" and "repo:" in filt:
            failures.append(("old", f"{label}: a repo: suggestion on the monorepo: {filt}"))
        for x, y in repeated_refinement(value):
            failures.append(("levels", f"{label}: {arg}={json.dumps(value)} repeats file:^{x} beside file:^{y}"))
        decided = unit == "files" and not held_cut and not whole_cut
        if decided and (held == 0 or held >= whole):
            failures.append(("old", f"{label}: {filt} holds {held} files of {whole}"))
        if i == 0 and decided and held and whole / held < 3:
            failures.append(("old", f"{label}: the top suggestion {filt} cuts {whole / held:.2f}x (3x expected)"))
    row["top_cut"] = whole / row["ways"][0]["held"] if row["ways"] and row["ways"][0]["held"] else 0
    row["top_cut_decided"] = bool(row["ways"]) and not whole_cut and not row["ways"][0]["held_cut"]
    # Levels: each directory suggestion's parent, by raw Zoekt's counts.
    levels = []
    filts = [w["filt"] for w in row["ways"]]
    for w in row["ways"]:
        up = parent_filter(w["filt"])
        if up is None:
            continue
        pfilt, pdir = up
        if pfilt in filts or not pfilt:
            continue
        _, pcensus = tool_queries(tool, (query + " " + pfilt) if tool != "find_references" else pfilt,
                                  symbol=query)
        pheld, pcut, _ = whole_files(url, pcensus)
        prepo = [t for t in tokens(pfilt) if t.startswith("repo:")]
        named = named_inside(row["ways"], pfilt, pdir)
        entry = dict(child=w["filt"], parent=pfilt, parent_files=pheld, parent_cut=pcut,
                     named_inside=named, whole=whole)
        if whole_cut or pcut:
            entry["verdict"] = "undecided (raw Zoekt cut)"
        elif pheld * 2 <= whole:
            entry["verdict"] = "skipped: the parent holds at most half of the result and is not offered"
        elif named * 3 < pheld * 2:
            entry["verdict"] = (f"skipped: the ways inside it name {named} of its {pheld} files "
                                f"(under 2/3) and it is not offered")
        else:
            entry["verdict"] = "ok"
        if entry not in levels and not any(e["parent"] == pfilt for e in levels):
            levels.append(entry)
    row["levels"] = levels
    for e in levels:
        if e["verdict"].startswith("skipped"):
            failures.append(("levels", f"{label}: {e['child']} is offered, its parent {e['parent']} "
                                       f"({e['parent_files']} of {whole} files) is not: {e['verdict']}"))
    several = len({f["Repository"] for f in census_files}) > 1
    named_files = sum(1 for f in census_files if any(
        selects(v, f["Repository"], f["FileName"], f.get("Language", "")) for _, v, _, _ in ways))
    row["named_share"] = named_files / census_read if census_read and ways else 0.0
    # Ways into what the census did not reach: no count; what they hold of the whole result
    # (raw `type:file`), and how many of raw Zoekt's census files they select (none, when raw
    # Zoekt's census stopped where the pager's did).
    row["uncounted"] = []
    for arg, value in uncounted_of(first):
        _, narrowed_census = tool_queries(tool, value, symbol=query)
        held, held_cut, _ = whole_files(url, narrowed_census)
        in_census = sum(1 for f in census_files
                        if selects(value, f["Repository"], f["FileName"], f.get("Language", "")))
        filt = value[len(query) + 1:] if arg == "query" and value.startswith(query + " ") else value
        row["uncounted"].append(dict(filt=filt, held=held, held_cut=held_cut, in_census=in_census))
        # One that holds nothing is a guess at names after the last one counted that no
        # repository has, or a rest beside the directories counted that holds nothing more:
        # a call that finds nothing, not a count that is wrong (reported).
    # Named of the whole result: the census's files some way selects, and the files of the
    # ways into what it did not reach (which select none of the pager's census's files).
    reached_whole = named_files + sum(u["held"] for u in row["uncounted"])
    row["named_whole"] = min(1.0, reached_whole / whole) if whole else 0.0
    row["unreached"] = unreached_parts(census_files, ways, several)[:3]
    failures += unreached_failures(row)
    out["ms2"].append(row)
    bad = sum(1 for w in row["ways"] if w["ok"] is False)
    undecided = sum(1 for w in row["ways"] if w["ok"] is None)
    say(f"[2] {label}: census read {census_read} of {whole}{' (cut)' if whole_cut else ''} files "
        f"({census_read / whole if whole else 0:.0%}), {len(ways)} ways {row['kind']}, {bad} off, "
        f"{undecided} undecided, named {row['named_share']:.0%} (of the whole result "
        f"{row['named_whole']:.0%}; not counted: {row['uncounted']}), levels "
        f"{[e['verdict'][:7] for e in levels]}, unreached {row['unreached']}")


# ---------------------------------------------------------------- must-show 3

def check_heavy(a, corpora, out, failures):
    for name, url in corpora:
        for tool, query in HEAVY:
            args = dict(call_args(tool, query), limit=LIMIT)
            for transport in ("grpc", "json"):
                env = {k: v for k, v in os.environ.items()
                       if not k.startswith(("ZOEKT_PAGER_", "ZOEKT_URL"))}
                env.update(ZOEKT_URL=url, ZOEKT_PAGER_ZOEKT_TRANSPORT=transport, ZOEKT_PAGER_LOG="warn")
                for over in ("MCP", "CLI"):
                    if over == "MCP":
                        took, text = call_once(a.bin, env, tool, args, 120, client="check-census-real")
                    else:
                        took, text = cli_call(a.bin, url, transport, tool, args, 120)
                    says = summary(text)
                    ok = took <= HEAVY_BOUND and "no reply" not in text and "about 0" not in text
                    out["ms3"].append(dict(corpus=name, tool=tool, query=query, transport=transport,
                                           over=over, secs=took, says=says, ok=ok))
                    if not ok:
                        failures.append(("3", f"{name} {tool} {json.dumps(query)} over {transport} {over}: "
                                              f"{took:.1f} s (bound {HEAVY_BOUND:.0f} s); says: {says}"))
                    say(f"[3] {name} {tool} {json.dumps(query)} {transport} {over}: {took:.1f} s {says[:110]}")


# ---------------------------------------------------------------- must-show 4

def py_regex(zoekt):
    """A filter's regex as Python reads it (readable_regex writes \\x{HEX})."""
    return re.sub(r"\\x\{([0-9a-fA-F]+)\}", lambda m: re.escape(chr(int(m.group(1), 16))), zoekt)


def selects(value, repo, path, language):
    """Whether every filter atom of `value` keeps the file (repo, path, language)."""
    for t in tokens(value):
        neg = t.startswith("-")
        atom = t[1:] if neg else t
        if ":" not in atom or not atom.startswith(FILTER_PREFIXES):
            continue
        field, _, pat = atom.partition(":")
        pat = pat.strip('"')
        if field in ("repo", "r"):
            hit = re.search(py_regex(pat), repo) is not None
        elif field in ("file", "f"):
            flags = 0 if re.search(r"[A-Z]", re.sub(r"\\.", "", pat)) else re.IGNORECASE
            hit = re.search(py_regex(pat), path, flags) is not None
        elif field == "lang":
            hit = pat.casefold() == (language or "").casefold()
        else:
            continue
        if hit == neg:
            return False
    return True


def specificity(value, current):
    """How specific the filter a suggestion adds to `current` is, most specific first: a
    directory's own files, then a directory (the deeper the better), then a repository, then a
    language (which cuts across the tree)."""
    added = [t for t in tokens(value) if t not in tokens(current)]
    if any(t.startswith("-file:^") and t.endswith(".+/") for t in added):
        return (0, 0)
    dirs = [t for t in added if t.startswith("file:^")]
    if dirs:
        return (1, -max(len(t) for t in dirs))
    if any(t.startswith("repo:") for t in added):
        return (2, 0)
    return (3, 0)


def in_directory(value, repo, path, several_repos):
    """Whether the filters of `value` narrow to the directory the target is in: its deepest
    `file:^DIR/` is the target's own directory (the top of its repository: no `file:^` and,
    with several repositories, the repository named), or a run of that directory's entries
    (`file:^DIR/issue1[0-4]`, `file:^DIR/a\\.go$`; the caller follows only ways that select
    the target), which is narrower still."""
    want = path.rpartition("/")[0]
    want = want + "/" if want else ""

    def directory(atom):
        # The literal start of the atom, up to a class or the end mark, and its directory.
        literal = re.split(r"(?<!\\)[\[$]", atom, maxsplit=1)[0]
        literal = re.sub(r"\\(.)", r"\1", literal)
        return literal.rpartition("/")[0] + "/" if "/" in literal else ""

    atoms = [t[len("file:^"):] for t in tokens(value) if t.startswith("file:^")]
    deepest = max((directory(a) for a in atoms), key=len, default="")
    repo_named = any(t.startswith(("repo:", "r:")) for t in tokens(value))
    return deepest == want and (repo_named or not several_repos)


def holds_target(url, tool, query, repo, path):
    """Raw Zoekt: the target file holds a result of `query` (its census query: the files
    holding the tool's items), and the file's language."""
    _, census_q = base_queries(tool, query)
    q = f"type:file {census_q} r:^{escape_regex(repo)}$ f:^{escape_regex(path)}$"
    _, r, _ = raw(url, q, dict(WHOLE_OPTS, MaxDocDisplayCount=5, MaxWallTime=10_000_000_000))
    files = r["Files"] or []
    hit = [f for f in files if f["Repository"] == repo and f["FileName"] == path]
    return (True, hit[0].get("Language", "")) if hit else (False, "")


def reach(a, name, url, side, out, failures):
    for repo, path in TARGETS[name]:
        for tool in TOOLS:
            tried = []
            chosen = None
            for query in REACH_QUERIES[tool]:
                held, language = holds_target(url, tool, query, repo, path)
                if not held:
                    continue
                _, r = side.call(tool, dict(call_args(tool, query), limit=LIMIT))
                total, tkind = total_of(r.get("structuredContent") or {})
                if total is None or total <= BROAD:
                    tried.append(f"{query} (not broad: {total})")
                    continue
                chosen = (query, r, language, total_text(total, tkind))
                break
            label = f"{name} {repo}/{path} {tool}"
            if chosen is None:
                # Nothing to reach from: the must-show is about a broad result holding the target.
                why = ("n/a: holds no result of any query tried" if not tried else
                       "n/a: no broad query holds it (" + "; ".join(tried) + ")")
                out["ms4"].append(dict(corpus=name, target=f"{repo}/{path}", tool=tool, query="-",
                                       calls="n/a", path_taken=[], why=why))
                say(f"[4] {label}: {why}")
                continue
            query, r, language, total = chosen
            arg = "symbol" if tool == "find_references" else "query"
            steps = [f"{json.dumps(query)} ({total})"]
            calls, reached, why = 0, (repo, path) in page_files(r["structuredContent"]), ""
            dir_calls = 0 if reached else None
            args_now = dict(call_args(tool, query), limit=LIMIT)
            while not reached and calls < 3:
                ways, note = ways_of(r, tool)
                for w in ways:
                    for x, y in repeated_refinement(w[1]):
                        failures.append(("levels", f"{label}: after {calls} calls, {w[0]}={json.dumps(w[1])} "
                                                   f"repeats file:^{x} beside file:^{y}"))
                fit = [w for w in ways if selects(w[1], repo, path, language)]
                # A way into what the census did not reach, when no counted one selects it.
                fit = fit or [(a_, v, "uncounted", 0) for a_, v in uncounted_of(r)
                              if selects(v, repo, path, language)]
                if not fit:
                    why = (f"no suggestion selects it (after {calls} calls; offered: "
                           + "; ".join(f"{w[1]} {w[2]}={w[3]}" for w in ways) + ")")
                    break
                current = args_now.get(fit[0][0], "")
                fit.sort(key=lambda w: specificity(w[1], current) + (w[3],))
                w_arg, value, key, stated = fit[0]
                args_now = dict(call_args(tool, query), limit=LIMIT)
                args_now[w_arg] = value
                _, r = side.call(tool, args_now)
                calls += 1
                if r.get("isError"):
                    steps.append(f"{w_arg}={json.dumps(value)} (error: {text_of(r).splitlines()[0][:120]})")
                    why = "the narrowed call failed"
                    break
                sc = r.get("structuredContent") or {}
                t_value, t_kind = total_of(sc)
                steps.append(f"{w_arg}={json.dumps(value)} ({total_text(t_value, t_kind)})")
                on_page = (repo, path) in page_files(sc)
                narrow = t_value is not None and t_value <= BROAD
                reached = on_page or narrow
                if dir_calls is None and (reached or in_directory(value, repo, path, name == "many")):
                    dir_calls = calls
                    if not reached:
                        steps[-1] += " in its directory"
                if reached:
                    steps[-1] += " on page 1" if on_page else " walkable"
            if not reached and not why:
                why = "not reached in 3 calls"
            out["ms4"].append(dict(corpus=name, target=f"{repo}/{path}", tool=tool, query=query,
                                   calls=calls if reached else None, dir_calls=dir_calls,
                                   path_taken=steps, why=why))
            if dir_calls is None:
                failures.append(("4", f"{label}: from {json.dumps(query)} ({arg}): {why}; path: "
                                      + " -> ".join(steps)))
            say(f"[4] {label}: directory {'in ' + str(dir_calls) if dir_calls is not None else 'NOT reached'}; "
                f"{'on page 1 or walkable in ' + str(calls) if reached else 'file not on a page: ' + why[:200]}")


# ---------------------------------------------------------------- must-show 5

def check_count(a, name, url, side, out, failures):
    rng = random.Random(5)
    for tool in TOOLS:
        query = COUNT_QUERY[tool]
        args = dict(call_args(tool, query), limit=LIMIT, count_only=True)
        _, census_q = base_queries(tool, query)
        t_count, t_census, reqs, errors = [], [], [], []
        said = None
        for _ in range(a.count_rounds):
            ops = ["count", "census"]
            rng.shuffle(ops)
            for op in ops:
                if op == "count":
                    t, r, timed, counted = side.counted_call(tool, args)
                    t_count.append(t)
                    reqs.append(max(timed, counted))
                    if r.get("isError"):
                        errors.append(text_of(r).splitlines()[0][:200])
                    else:
                        said = said or r
                else:
                    # A count's census counts only: names alone, whatever the tool.
                    t_census.append(raw(url, "type:file " + census_q, CENSUS_OPTS)[0])
        sc = said["structuredContent"] if said else {}
        total, tkind = total_of(sc)
        ratio = ms(t_count) / ms(t_census)
        ok = ratio <= 2 and not errors
        for e in errors:
            failures.append(("5", f"{name} {tool} {json.dumps(query)} count_only failed "
                                  f"({len(errors)} of {a.count_rounds} rounds): {e}"))
        out["ms5"].append(dict(corpus=name, tool=tool, query=query, total=total_text(total, tkind),
                               count=ms(t_count), census=ms(t_census), ratio=ratio,
                               requests=max(reqs), ok=ok, errors=len(errors),
                               warning=next((w for w in sc.get("warnings", [])), "")))
        if ratio > 2:
            failures.append(("5", f"{name} {tool} {json.dumps(query)} count_only: p50 {ms(t_count):.0f} ms, "
                                  f"{ratio:.2f}x raw Zoekt's census request ({ms(t_census):.0f} ms); at most 2x expected"))
        say(f"[5] {name} {tool} {json.dumps(query)} count_only {ms(t_count):.0f} ms vs census "
            f"{ms(t_census):.0f} ms ({ratio:.2f}x), total {total_text(total, tkind)}")


# ---------------------------------------------------------------- report

def md_escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def report(a, out, failures, took, path):
    L = []
    w = L.append
    w("# One census of the whole result, on real code\n")
    w("Written by `scripts/real-corpora.sh check` (`scripts/check-census-real.py`), the release "
      "binary at its defaults (gRPC, census wall time 3 s, max wall time 10 s, per-shard cap "
      "10,000, limit 30), the window cache off (`serve --http --cache-bytes 0`) where times are "
      "taken. Expected answers come from raw Zoekt over its JSON API. "
      f"Rounds: {a.rounds} (page 1), {a.count_rounds} (count_only); p50 times. "
      f"The run took {took / 60:.1f} minutes; load average at its end "
      f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs.\n")
    w("Rerun: `scripts/real-corpora.sh check` (builds the release binary, serves both corpora, "
      "writes this file; `--only 1,2` and `--tools search` for a quick look, `--state S.json` to "
      "resume a run that broke off). Parts can run side by side, each with its own `--zoekt` and "
      "`--state`, then `scripts/check-census-real.py --merge S1.json S2.json --markdown "
      "docs/bench/census-real.md` writes one report.\n")
    if out["ms1"]:
        w("## 1. Page 1: Zoekt requests and time\n")
        w("Requests: by `/metrics` (`zoekt_pager_zoekt_request_seconds_count`) / by the page's own "
          "count (`zoekt_pager_zoekt_requests_per_page_sum`), the most of any round. Raw window: "
          "`MaxDocDisplayCount` 34 (find_references: its usages; its definitions come with its census); "
          "raw census: `type:file`, 40,000 files, 3 s (find_references: `(definitions) or (type:file (usages without sym:))`). Bound: 1.1 x the slower raw p50. The last "
          "column, not checked, is page 1 of a sidecar with `--suggest-filters off` (its own window "
          "alone, no census), timed in the same rounds: what page 1 costs without the census. "
          "Raw both at once: raw Zoekt's window(s) and census sent together, as the pager sends "
          "them (not a must-show bound: on 2 CPUs the two searches share them).\n")
        w("| corpus | tool | query | total | requests (off) | page 1 ms | raw window ms | raw census ms | bound ms | page/bound | ok | page 1 ms, suggestions off | raw both at once ms | page/both |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in out["ms1"]:
            ok = "yes" if r["ok_req"] and r["ok_time"] and r["broad"] and not r["errors"] else \
                "**" + ", ".join(x for x, bad in (("requests", not r["ok_req"]), ("time", not r["ok_time"]),
                                                   ("not broad", not r["broad"]),
                                                   (f"{r['errors']} errors", r["errors"])) if bad) + "**"
            w(f"| {r['corpus']} | {r['tool']} | `{md_escape(r['query'])}` | {r['total']} | {r['timed']} / {r['counted']} ({r.get('plain_req', '?')}) "
              f"| {r['page']:.0f} | {r['window']:.0f} | {r['census']:.0f} | {r['bound']:.0f} | "
              f"{r['page'] / r['bound']:.2f} | {ok} | {r['plain']:.0f} | {r.get('both', float('nan')):.0f} | "
              f"{r['page'] / r['both'] if r.get('both') else float('nan'):.2f} |")
        w("")
        for name in sorted({r["corpus"] for r in out["ms1"]}):
            for tool in TOOLS:
                rows = [r for r in out["ms1"] if r["corpus"] == name and r["tool"] == tool]
                if rows:
                    w(f"- {name} {tool}: requests at most 2 on {sum(r['ok_req'] for r in rows)} of {len(rows)}, "
                      f"time within bound on {sum(r['ok_time'] for r in rows)} of {len(rows)} (page/bound "
                      f"{min(r['page'] / r['bound'] for r in rows):.2f}-{max(r['page'] / r['bound'] for r in rows):.2f}), "
                      f"within 1.1 x raw both at once on {sum(r.get('ok_both', False) for r in rows)} of {len(rows)} "
                      f"(page/both median {statistics.median(r['page'] / r['both'] for r in rows if r.get('both')) if any(r.get('both') for r in rows) else float('nan'):.2f})")
        w("")
    if out["ms2"]:
        w("## 2. Coverage of the census, and each suggestion's count\n")
        w("Census read: files raw Zoekt's census request returned (40,000 files, 3 s, per-shard cap "
          "10,000), its FileCount, `cut` when Zoekt left files unsearched. Whole: raw `type:file` "
          "FileCount of the census query with no cap and no wall time. Content: raw FileCount of the "
          "tool's own query at the pager's caps (10,000 a shard, 10 s). Kinds: `=` exact, `~` about, "
          "`>=` at least. Off: suggestions whose count misses raw Zoekt's count of the narrowed "
          "call's files (exact: equal; about: within [2/3, 1.5]; at least: at most it).\n")
        w("Named: the share of the census's files (raw Zoekt's list) that at least one suggestion "
          "selects. Levels: for each directory suggestion whose parent directory (or repository) "
          "is not offered, whether that is by design: the parent holds more than half of the "
          "result (the list goes down through it) and the ways inside it name at least 2/3 of it "
          "(else the parent must be offered too, the issue's words). Unreached: a directory holding "
          "5% or more of the census's files none of which any suggestion selects (checked where raw "
          "Zoekt's census is whole: a cut one holds whichever files its shards reached, not "
          "necessarily the pager's). `?`: raw Zoekt's "
          "own count was cut (20 s) and does not decide. Not counted: the ways into repositories "
          "the census did not reach (Zoekt's time ran out before them), with the whole result's "
          "files each holds by raw `type:file` (`?`: that count was cut); named of the whole: the "
          "census's files some way selects and the files of those ways, against the whole "
          "result.\n")
        w("| corpus | tool | query | census read (count) | whole | coverage | content files | census MB | kind | ways | JSON chars | top cuts | stated/raw (min-max) | off | ? | named | levels | unreached | not counted | named of the whole |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in out["ms2"]:
            ratios = [x["ratio"] for x in r["ways"] if x["held"]]
            span = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"
            off = sum(1 for x in r["ways"] if x["ok"] is False)
            und = sum(1 for x in r["ways"] if x["ok"] is None)
            lv = r.get("levels", [])
            skipped = [e for e in lv if e["verdict"].startswith("skipped")]
            levels = (f"**{len(skipped)} skipped**" if skipped else
                      f"{len(lv)} ok" if lv else "-")
            if any(e["verdict"].startswith("undecided") for e in lv):
                levels += " (some ?)"
            whole_census = not r["census_cut"] and r["census_read"] >= r["census_count"]
            unr = "; ".join((f"**{k} {v}**" if whole_census else f"{k} {v}")
                            for k, v in r.get("unreached", [])) or "-"
            if r.get("unreached") and not whole_census:
                unr += " (census cut: not checked)"
            ways_n = f"**{r['n_ways']}**" if r['n_ways'] < 5 else str(r['n_ways'])
            cut_ = f"{r['top_cut']:.1f}x" + ("" if r.get("top_cut_decided", True) else " ?")
            w(f"| {r['corpus']} | {r['tool']} | `{md_escape(r['query'])}` | {r['census_read']} ({r['census_count']}"
              f"{', cut' if r['census_cut'] else ''}) | {r['whole']}{' cut' if r['whole_cut'] else ''} | "
              f"{r['census_read'] / r['whole'] if r['whole'] else 0:.0%} | {r['content_files']}"
              f"{' cut' if r['content_cut'] else ''} | {r['census_mb']:.1f} | {r.get('unit', '')} {r['kind']} | {ways_n} | "
              f"{r['chars']} | {cut_} | {span} | {'**' + str(off) + '**' if off else 0} | {und} | "
              f"{r.get('named_share', 0):.0%} | {levels} | {unr} | "
              + ("<br>".join(f"`{md_escape(u['filt'])}` {u['held']}{' ?' if u['held_cut'] else ''}"
                             for u in r.get("uncounted", [])) or "-")
              + f" | {r.get('named_whole', r.get('named_share', 0)):.0%} |")
        w("")
        unc = [(r, u) for r in out["ms2"] for u in r.get("uncounted", [])]
        if unc:
            pages = len({id(r) for r, _ in unc})
            w(f"Ways into what a cut census did not reach: {len(unc)} on {pages} pages; "
              f"{sum(1 for _, u in unc if u['held'] == 0 and not u['held_cut'])} of them hold no "
              f"file (a guess at names after the last one counted that no repository has, or a rest "
              f"beside the directories counted that holds nothing more); named "
              f"of the whole result on those pages: median "
              f"{statistics.median(r['named_whole'] for r in {id(r): r for r, _ in unc}.values()):.0%}, "
              f"against a census coverage of median "
              f"{statistics.median([r['census_read'] / r['whole'] for r in {id(r): r for r, _ in unc}.values() if r['whole']] or [0]):.0%}.\n")
        n_ways = sum(len(r["ways"]) for r in out["ms2"])
        by_kind = {}
        for r in out["ms2"]:
            for x in r["ways"]:
                k = kind_of(x["key"])
                by_kind.setdefault(k, []).append(x)
        w(f"{n_ways} suggestions checked: " + "; ".join(
            f"{len(v)} {({'': 'exact', 'about': 'about', 'at_least': 'at least'})[k]} "
            f"({sum(1 for x in v if x['ok'] is True)} right, {sum(1 for x in v if x['ok'] is None)} "
            f"undecided; stated/raw median "
            f"{statistics.median([x['ratio'] for x in v if x['held']] or [0]):.2f}, min "
            f"{min([x['ratio'] for x in v if x['held']] or [0]):.2f})"
            for k, v in sorted(by_kind.items())) + ".\n")
    if out["examples"]:
        w("## Suggestions as a model reads them (one query per corpus and tool)\n")
        for name, tool, query, text in out["examples"]:
            w(f"`{tool}` `{query}` on `{name}`:\n\n```text\n{text}\n```\n")
    if out["ms3"]:
        w(f"## 3. Queries Zoekt cannot finish (bound {HEAVY_BOUND:.0f} s)\n")
        w("| corpus | query | transport | over | seconds | says | ok |")
        w("|---|---|---|---|---|---|---|")
        for r in out["ms3"]:
            w(f"| {r['corpus']} | {r['tool']} `{md_escape(r['query'])}` | {r['transport']} | {r['over']} | "
              f"{r['secs']:.1f} | {md_escape(r['says'])} | {'yes' if r['ok'] else '**no**'} |")
        w("")
    if out["ms4"]:
        w("## 4. Reach: following only the suggestions\n")
        w("From a broad query whose result holds the target (raw Zoekt), each step calls the "
          "most specific suggestion that selects the target (a directory's own files, then the deepest "
          "directory, then the repository, then a language; the smaller count among equals). Two "
          "marks, each in suggestion calls after the broad one: **directory**, the first call "
          "narrowed to the directory the target is in (its deepest `file:^` is the target's own "
          "directory, or a run of that directory's entries, narrower still, or the repository's "
          "top with the repository named), the part a model then "
          "walks or searches; **file**, the first call with the target on its page 1 or a total of "
          "90 or less (walkable). A miss on `directory` fails the check; `file` is reported: a "
          "result of 100,000 items cannot be cut to one page in three calls of at most 14 ways "
          "(14^3 = 2,744 parts).\n")
        w("| corpus | target | tool | query | directory | file | path / why not |")
        w("|---|---|---|---|---|---|---|")
        for r in out["ms4"]:
            calls = "**no**" if r["calls"] is None else r["calls"]
            if r["calls"] == "n/a":
                detail = r["why"]
                w(f"| {r['corpus']} | `{r['target']}` | {r['tool']} | - | n/a | n/a | {md_escape(detail)} |")
                continue
            dcalls = "**no**" if r.get("dir_calls") is None else r["dir_calls"]
            detail = " -> ".join(r["path_taken"]) + (f"; **{r['why']}**" if r["why"] else "")
            w(f"| {r['corpus']} | `{r['target']}` | {r['tool']} | `{md_escape(r['query'])}` | {dcalls} | {calls} | {md_escape(detail)} |")
        w("")
    if out["ms4"]:
        for name in sorted({r["corpus"] for r in out["ms4"]}):
            rows = [r for r in out["ms4"] if r["corpus"] == name]
            tried = [r for r in rows if r["calls"] != "n/a"]
            for mark, key in (("its directory", "dir_calls"), ("the file (page 1 or walkable)", "calls")):
                reached = [r for r in tried if r.get(key) is not None]
                dist = {n: sum(1 for r in reached if r[key] == n) for n in range(4)}
                w(f"- {name}: {mark} reached on {len(reached)} of {len(tried)} (target, tool) pairs "
                  f"({', '.join(f'{v} in {k}' for k, v in dist.items())} calls)")
            w(f"- {name}: {len(rows) - len(tried)} n/a (no broad query of the lists holds the target)")
        w("")
    if out["ms5"]:
        w("## 5. count_only against raw Zoekt's census request\n")
        w("Requests: the most of any round (/metrics or the page's own count). Errors: rounds whose "
          "count_only was an error.\n")
        w("| corpus | tool | query | total | requests | count_only ms | raw census ms | ratio | errors | warning | ok |")
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in out["ms5"]:
            w(f"| {r['corpus']} | {r['tool']} | `{md_escape(r['query'])}` | {r['total']} | {r['requests']} | "
              f"{r['count']:.0f} | {r['census']:.0f} | {r['ratio']:.2f} | {r['errors']} | {md_escape(r['warning'][:80])} | "
              f"{'yes' if r['ok'] else '**no**'} |")
        w("")
    w(f"## Failures: {len(failures)}\n")
    for ms_, f in failures:
        w(f"- [{ms_ if ms_ != 'old' else 'check-narrow-real'}] {f}")
    text = "\n".join(L) + "\n"
    if path:
        with open(path, "w") as fh:
            fh.write(text)
    return text


def main():
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin")
    ap.add_argument("--zoekt", action="append", default=[], metavar="NAME=URL")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--count-rounds", type=int, default=5)
    ap.add_argument("--only", default="1,2,3,4,5", help="which must-shows (2 needs 1's pages)")
    ap.add_argument("--tools", default=",".join(TOOLS), help="which tools (a quick look)")
    ap.add_argument("--queries", type=int, default=10, help="how many of each tool's queries")
    ap.add_argument("--markdown")
    ap.add_argument("--state", help="keep what is measured here after each part, and skip the "
                                     "parts it holds when run again (a long run that broke off)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--merge", nargs="+", metavar="STATE.json",
                    help="write one report of these states (runs of parts side by side) and stop")
    a = ap.parse_args()
    a.only = set(a.only.split(","))
    if a.merge:
        out = {k: [] for k in ("ms1", "ms2", "ms3", "ms4", "ms5", "examples")}
        failures, seconds = [], 0.0
        for path in a.merge:
            with open(path) as fh:
                st = json.load(fh)
            for k in out:
                out[k] += st["out"].get(k, [])
            # Unreached parts as this script now judges them (a run may be older).
            failures += [tuple(f) for f in st["failures"] if UNREACHED not in f[1]]
            for row in st["out"].get("ms2", []):
                failures += unreached_failures(row)
            seconds = max(seconds, st["seconds"])
        print(report(a, out, failures, seconds, a.markdown)[-3000:])
        return
    TOOLS[:] = [t for t in TOOLS if t in a.tools.split(",")]
    for tool in QUERIES:
        QUERIES[tool] = QUERIES[tool][:a.queries]
    if not a.bin or not a.zoekt:
        ap.error("--bin and --zoekt are needed (but with --merge)")
    corpora = [tuple(s.split("=", 1)) for s in a.zoekt]
    started = time.time()
    state = {"out": {k: [] for k in ("ms1", "ms2", "ms3", "ms4", "ms5", "examples")},
             "failures": [], "done": [], "seconds": 0.0}
    if a.state and os.path.exists(a.state):
        with open(a.state) as fh:
            state = json.load(fh)
        say(f"resuming from {a.state}: done {', '.join(state['done']) or 'nothing'}")
    out, failures = state["out"], state["failures"]
    failures[:] = [tuple(f) for f in failures]

    def section(key, run):
        """Runs one part once (a resumed run skips what is done), keeps going when it breaks,
        and saves what is known so far."""
        if key in state["done"]:
            return
        t = time.time()
        try:
            run()
            state["done"].append(key)
        except Exception as e:  # a broken part is a failure of the check, not the end of it
            import traceback
            traceback.print_exc()
            failures.append(("run", f"{key} broke off: {type(e).__name__}: {e}"))
        state["seconds"] += time.time() - t
        if a.state:
            with open(a.state, "w") as fh:
                json.dump(state, fh)
        if a.markdown:
            report(a, out, failures, state["seconds"], a.markdown)

    for name, url in corpora:
        parts = [(f"{name}:pages", {"1", "2"}), (f"{name}:count", {"5"}), (f"{name}:reach", {"4"})]
        if all(key in state["done"] or not (a.only & which) for key, which in parts):
            continue
        side = Sidecar(a.bin, url)
        plain = Sidecar(a.bin, url, extra=("--suggest-filters", "off"))
        try:
            if a.only & {"1", "2"}:
                section(f"{name}:pages", lambda: check_pages(a, name, url, side, plain, out, failures))
            if "5" in a.only:
                section(f"{name}:count", lambda: check_count(a, name, url, side, out, failures))
            if "4" in a.only:
                section(f"{name}:reach", lambda: reach(a, name, url, side, out, failures))
        finally:
            side.close()
            plain.close()
    if "3" in a.only:
        section("heavy", lambda: check_heavy(a, corpora, out, failures))
    text = report(a, out, failures, state["seconds"], a.markdown)
    print(text)
    sys.exit(1 if failures and not a.report_only else 0)


if __name__ == "__main__":
    main()
