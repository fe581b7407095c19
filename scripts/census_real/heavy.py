"""Must-show 3: the queries Zoekt cannot finish, each within Zoekt's wall time + 5 s, over gRPC
and JSON, over MCP stdio (`mcp_stdio.call_once`) and the command line.

`mcp_stdio` is a module of `scripts/`, found on `sys.path`: the entry point puts its own
folder there before it imports this package.
"""

import json
import os

from mcp_stdio import call_once

from .common import HEAVY, HEAVY_BOUND, LIMIT, say
from .pager import cli_call, summary
from .queries import call_args


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
