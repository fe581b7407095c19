"""Must-shows 1 and 2 on one corpus: page 1 of each broad query (its Zoekt requests and its
time against raw Zoekt's window and census requests), then the census's coverage and every
suggestion's count against raw Zoekt, with what the issue asks of the ways themselves (levels,
repeated refinements, parts no suggestion reaches).
"""

import json
import random
import re

from .common import (BROAD, CENSUS_OPTS, COUNT_QUERY, LIMIT, NARROW, PAGER_OPTS, QUERIES, SIGN,
                     TOOLS, WINDOW_OPTS, ms, say)
from .pager import (kind_of, suggestions_text, text_of, total_of, total_text, uncounted_of,
                    ways_of)
from .queries import (base_queries, call_args, census_request, page_windows, selects, tokens,
                      tool_queries)
from .zoekt import count_items, cut, raw, raw_at_once, whole_files


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
