"""The text of the Zoekt queries a tool's call sends (its window queries and its census
query), written from the tools' documented queries, and the reading of a suggestion's filters:
which files (repository, path, language) they select.

Pure text, no requests: both must-show 2 (coverage) and must-show 4 (reach) read filters with
`selects`, so it lives here rather than with either.
"""

import functools
import re


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


# ---------------------------------------------------------------- what a filter selects

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
