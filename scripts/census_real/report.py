"""The Markdown report (`--markdown`, docs/bench/census-real.md) of what the checks measured:
one section per must-show, then the failures. It reads only the rows the checks wrote (or a
merged `--state`), so `--merge` can write it without running anything.
"""

import os
import statistics

from .common import HEAVY_BOUND, TOOLS
from .pager import kind_of


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
