"""Must-show 4, reach: from a broad query whose result holds a target chosen beforehand, a
model that follows only the suggestions selecting the target gets to its directory (and to the
file, reported) within 3 calls. With it, how specific a suggestion is and whether a call is
narrowed to the target's directory.
"""

import json
import re

from .common import BROAD, LIMIT, REACH_QUERIES, TARGETS, TOOLS, WHOLE_OPTS, say
from .pager import page_files, text_of, total_of, total_text, uncounted_of, ways_of
from .pages import repeated_refinement
from .queries import base_queries, call_args, escape_regex, selects, tokens
from .zoekt import raw


# ---------------------------------------------------------------- must-show 4

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
