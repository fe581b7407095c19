"""Raw Zoekt over its JSON API (`/api/search`, urllib): the expected answers every check holds
the pager's against, never the pager's own.

`_WHOLE` caches Zoekt's whole counts per (url, query) for the whole run; it lives only here.
"""

import json
import threading
import time
import urllib.request

from .common import PAGER_OPTS, WHOLE_OPTS


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
