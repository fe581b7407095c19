#!/usr/bin/env python3
"""Generate a deterministic monorepo-like corpus with deep paths.

Usage:
    gen-deep.py OUT_DIR [--files N] [--seed S]

Writes exactly N files (default 3000) into two repositories, `acme-platform`
(Go and Python) and `acme-web` (TypeScript), each a direct subfolder of
OUT_DIR to be indexed on its own with zoekt-index. Every file lies 6 to 10
directories deep, at paths built from monorepo-style segments, for example

    acme-platform/services/payments/ledger/internal/adapters/postgres/v2/reconcile/batch_writer_0042.go

What it is for: measuring what a page costs a model to read where paths are
long, as in a real monorepo (the generated 12,000-file corpus has paths of 2
to 3 directories). The facts the benchmark relies on:

- every file defines 2 to 4 functions named handle<Noun><K> (K a global
  counter), so `search_symbols handle` is broad;
- every function calls `logEvent(ctx, "<noun>.<verb>", ...)` once or twice and
  the shared helper `logEvent` is defined once per repository
  (`.../observability/logging/events/log_event.*`), so `find_references
  logEvent` has 2 definitions and thousands of usages;
- lines are realistic in length and hold quotes, so JSON escaping is paid.

The output depends only on N and the seed; OUT_DIR must not exist or be empty.
The last line printed is a summary. Only the Python 3 standard library is used.
"""

import argparse
import os
import random
import sys

SEGMENTS = [
    ["services", "platform", "libs", "tools", "infra"],
    ["payments", "identity", "catalog", "search", "billing", "shipping", "observability"],
    ["ledger", "accounts", "sessions", "pricing", "inventory", "logging", "routing"],
    ["internal", "pkg", "core", "domain"],
    ["adapters", "handlers", "repositories", "workers", "events"],
    ["postgres", "kafka", "grpc", "http", "redis", "s3"],
    ["v1", "v2", "v3"],
    ["reconcile", "ingest", "export", "migrate", "sync"],
    ["batch", "stream", "cron"],
    ["internal_tests", "fixtures", "generated"],
]
NOUNS = ["Order", "Payment", "Refund", "Session", "Invoice", "Shipment", "Account",
         "Price", "Token", "Cart", "Ledger", "Report"]
VERBS = ["created", "updated", "failed", "retried", "settled", "expired", "queued"]
STEMS = ["batch_writer", "event_consumer", "request_router", "state_machine",
         "retry_policy", "schema_mapper", "rate_limiter", "outbox_relay"]


def deep_path(rng, depth, stem, ext):
    parts = [rng.choice(SEGMENTS[i]) for i in range(depth)]
    return "/".join(parts + [f"{stem}.{ext}"])


def go_file(rng, counter, nfuncs):
    out = ["package " + rng.choice(["ledger", "ingest", "adapters", "workers"]), "",
           'import "context"', ""]
    names = []
    for _ in range(nfuncs):
        noun = rng.choice(NOUNS)
        name = f"handle{noun}{counter[0]}"
        counter[0] += 1
        names.append(name)
        verb = rng.choice(VERBS)
        out += [
            f"// {name} applies one {noun.lower()} change and records it for the audit trail.",
            f"func {name}(ctx context.Context, req *{noun}Request) (*{noun}Response, error) {{",
            f"\tif req == nil {{",
            f'\t\treturn nil, fmt.Errorf("{name}: empty request for tenant %q", req.TenantID)',
            "\t}",
            f'\tlogEvent(ctx, "{noun.lower()}.{verb}", map[string]string{{"id": req.ID, "tenant": req.TenantID}})',
        ]
        if rng.random() < 0.5:
            out.append(f'\tlogEvent(ctx, "{noun.lower()}.audit", map[string]string{{"step": "commit"}})')
        out += [f"\treturn &{noun}Response{{ID: req.ID, Status: \"ok\"}}, nil", "}", ""]
    return "\n".join(out) + "\n"


def py_file(rng, counter, nfuncs):
    out = ["from observability.logging.events.log_event import logEvent", ""]
    for _ in range(nfuncs):
        noun = rng.choice(NOUNS)
        name = f"handle{noun}{counter[0]}"
        counter[0] += 1
        verb = rng.choice(VERBS)
        out += [
            f"def {name}(ctx, request):",
            f'    """Apply one {noun.lower()} change and record it for the audit trail."""',
            f"    if request is None:",
            f'        raise ValueError(f"{name}: empty request for tenant {{ctx.tenant!r}}")',
            f'    logEvent(ctx, "{noun.lower()}.{verb}", {{"id": request.id, "tenant": ctx.tenant}})',
        ]
        if rng.random() < 0.5:
            out.append(f'    logEvent(ctx, "{noun.lower()}.audit", {{"step": "commit"}})')
        out += [f'    return {{"id": request.id, "status": "ok"}}', ""]
    return "\n".join(out) + "\n"


def ts_file(rng, counter, nfuncs):
    out = ['import { logEvent } from "../../observability/logging/events/log_event";', ""]
    for _ in range(nfuncs):
        noun = rng.choice(NOUNS)
        name = f"handle{noun}{counter[0]}"
        counter[0] += 1
        verb = rng.choice(VERBS)
        out += [
            f"export async function {name}(ctx: Context, req: {noun}Request): Promise<{noun}Response> {{",
            f"  if (!req) {{",
            f'    throw new Error(`{name}: empty request for tenant "${{ctx.tenant}}"`);',
            "  }",
            f'  logEvent(ctx, "{noun.lower()}.{verb}", {{ id: req.id, tenant: ctx.tenant }});',
        ]
        if rng.random() < 0.5:
            out.append(f'  logEvent(ctx, "{noun.lower()}.audit", {{ step: "commit" }});')
        out += ['  return { id: req.id, status: "ok" };', "}", ""]
    return "\n".join(out) + "\n"


HELPERS = {
    "go": 'package events\n\nimport "context"\n\n// logEvent writes one structured audit event.\n'
          'func logEvent(ctx context.Context, name string, fields map[string]string) {\n'
          '\t_ = ctx\n\t_ = name\n\t_ = fields\n}\n',
    "ts": "// logEvent writes one structured audit event.\n"
          "export function logEvent(ctx: Context, name: string, fields: object): void {\n"
          "  void ctx; void name; void fields;\n}\n",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if os.path.exists(a.out) and os.listdir(a.out):
        sys.exit(f"{a.out} is not empty")
    rng = random.Random(a.seed)
    counter = [1]
    written = set()
    depths = []

    def write(repo, rel, text):
        path = os.path.join(a.out, repo, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        written.add((repo, rel))

    write("acme-platform", "libs/observability/logging/events/internal/go/log_event.go", HELPERS["go"])
    write("acme-web", "libs/observability/logging/events/internal/ts/log_event.ts", HELPERS["ts"])
    n = 0
    while len(written) < a.files:
        n += 1
        depth = rng.randint(6, 10)
        stem = f"{rng.choice(STEMS)}_{n:04d}"
        kind = rng.choice(["go", "go", "py", "ts", "ts"])
        repo = "acme-web" if kind == "ts" else "acme-platform"
        rel = deep_path(rng, depth, stem, kind)
        if (repo, rel) in written:
            continue
        nfuncs = rng.randint(2, 4)
        text = {"go": go_file, "py": py_file, "ts": ts_file}[kind](rng, counter, nfuncs)
        write(repo, rel, text)
        depths.append(depth)
    print(f"files={len(written)} repos=2 handle_functions={counter[0] - 1} "
          f"depth={min(depths)}-{max(depths)} out={a.out}")


if __name__ == "__main__":
    main()
