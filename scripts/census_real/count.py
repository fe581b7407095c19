"""Must-show 5: `count_only` of one broad query per tool, its p50 time at most 2 x raw Zoekt's
census request, timed in the same rounds.
"""

import json
import random

from .common import CENSUS_OPTS, COUNT_QUERY, LIMIT, TOOLS, ms, say
from .pager import text_of, total_of, total_text
from .queries import base_queries, call_args
from .zoekt import raw


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
