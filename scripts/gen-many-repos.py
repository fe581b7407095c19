#!/usr/bin/env python3
"""Generate a deterministic corpus of many small repositories, as a company's code host holds
them: for measuring what a broad query's suggested ways to narrow do when results spread over
many repositories (scripts/bench-narrow.py).

Usage:
    gen-many-repos.py OUT_DIR [--repos N] [--seed S]

Writes N repositories (default 120), each a direct subfolder of OUT_DIR meant to be indexed on
its own. Repository sizes follow a long tail (a few large services, many small libraries):
repository i holds about 400 / (i + 1) ** 0.8 files, at least 3. Each repository is mostly in
one language (Go, Python, TypeScript or Java), a few files in another, under
`services/<area>/<component>/` or `libs/<area>/` paths. Every file defines one to four
functions `handle<Entity><K>` and calls `logEvent(` in each, so `handle` (symbols) and
`logEvent` (content, references) are broad queries.

The output depends only on N and the seed. OUT_DIR must not exist or must be empty. The last
line printed is a summary: repos=... files=... handle_definitions=... out=...
Only the Python 3 standard library is used.
"""

import argparse
import os
import random
import sys

LANGS = {
    "go": ("go", "func {name}(ctx context.Context) error {{\n\tlogEvent(ctx, \"{ev}\")\n\treturn nil\n}}\n"),
    "py": ("py", "def {name}(ctx):\n    logEvent(ctx, \"{ev}\")\n    return None\n"),
    "ts": ("ts", "export function {name}(ctx: Ctx): void {{\n  logEvent(ctx, \"{ev}\");\n}}\n"),
    "java": ("java", "  public void {name}(Ctx ctx) {{\n    logEvent(ctx, \"{ev}\");\n  }}\n"),
}
AREAS = ["billing", "search", "identity", "payments", "catalog", "ledger", "routing", "storage",
         "metrics", "notify", "orders", "pricing"]
PARTS = ["api", "core", "workers", "adapters", "handlers", "domain", "internal", "client"]
ENTITIES = ["Invoice", "Order", "Refund", "Token", "Session", "Report", "Price", "Account"]


def header(lang, path):
    if lang == "go":
        return f"package {os.path.basename(os.path.dirname(path))}\n\nimport \"context\"\n\n"
    if lang == "java":
        cls = os.path.splitext(os.path.basename(path))[0].title().replace("_", "")
        return f"class {cls} {{\n"
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--repos", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if os.path.exists(a.out_dir) and os.listdir(a.out_dir):
        sys.exit(f"{a.out_dir} is not empty")
    rng = random.Random(a.seed)
    k = files = 0
    lang_names = list(LANGS)
    for i in range(a.repos):
        area = AREAS[i % len(AREAS)]
        kind = "svc" if i % 3 == 0 else "lib"
        repo = f"{kind}-{area}-{i:03d}"
        main_lang = lang_names[i % len(lang_names)]
        n = max(3, int(400 / (i + 1) ** 0.8))
        for j in range(n):
            lang = main_lang if rng.random() < 0.9 else rng.choice(lang_names)
            ext, template = LANGS[lang]
            if kind == "svc":
                d = f"services/{area}/{rng.choice(PARTS)}/{rng.choice(PARTS)}"
            else:
                d = f"libs/{area}/{rng.choice(PARTS)}"
            path = f"{d}/unit_{j:04d}.{ext}"
            body = header(lang, path)
            for _ in range(rng.randint(1, 4)):
                k += 1
                name = f"handle{rng.choice(ENTITIES)}{k}"
                body += template.format(name=name, ev=f"{area}.{rng.choice(PARTS)}")
                body += "\n"
            if lang == "java":
                body += "}\n"
            full = os.path.join(a.out_dir, repo, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(body)
            files += 1
    print(f"repos={a.repos} files={files} handle_definitions={k} out={a.out_dir}")


if __name__ == "__main__":
    main()
