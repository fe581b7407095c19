#!/usr/bin/env python3
"""Generate a large, deterministic source corpus for Zoekt paging tests.

Usage:
    gen-corpus.py OUT_DIR [--files N] [--seed S]

Writes exactly N files (default 12000) spread over six repositories, each a
direct subfolder of OUT_DIR and each meant to be indexed on its own with
zoekt-index:

    gen-go-a  gen-go-b  gen-py-a  gen-py-b  gen-rs-a  gen-rs-b

Each file is a small Go, Python or Rust source file that defines one to three
functions named genSym<K> (K is a global counter, starting at 1). A genSym
name appears only on the line that defines it (there are no calls and no
comments containing it), so a content search for `genSym` returns one line
per definition, and `sym:genSym` finds the same definitions through ctags.

Every function takes one argument `x`, rebinds it a fixed number of times
(`x = x + 5` in Go, 18 times; `x = x * 3` in Python, 16 times; `let x = x ^ 7;`
in Rust, 11 times; operators and constants drawn from the seeded rng) and
returns an expression of it. So each function has 20 (Go), 18 (Python) or 13
(Rust) lines holding the token `x`, and `x` appears nowhere else. A content
search for `x` is a broad query: with the defaults (12000 files, seed 1) it
matches every file and 407,318 lines (Zoekt's MatchCount counts lines), far
past the pager's effort caps (10,000 per shard, 100,000 in all). The six
repositories are about the same size in bytes (1.22-1.29 MB each; Rust lines
are longer, hence fewer of them), so one zoekt-index -shard_limit cuts each
into the same number of shards (scripts/test.sh uses 470000: 3 shards each).

Roughly one logical file in ten is "shared": it is written with identical
bytes at the same relative path into both repositories of its language
(e.g. gen-go-a/pkg003/unit_000930.go and gen-go-b/pkg003/unit_000930.go).
Shared copies do NOT tie on score in Zoekt (its score ends with a doc-order term and
the two repositories' shards differ), but they are twins a careless re-sort would swap;
real ties come from scripts/gen-ties.py. Each copy counts towards N
and towards the genSym definition count.

The output depends only on N and the seed. OUT_DIR must not exist or must
be empty; nothing is written anywhere else and nothing is deleted. The last
line printed is a summary, for example:

    files=12000 repos=6 genSym_definitions=... unique_genSym=... shared_files=... out=...

Only the Python 3 standard library is used.
"""

import argparse
import os
import random
import sys

LANGS = (
    # (language, file extension, repo a, repo b)
    ("go", "go", "gen-go-a", "gen-go-b"),
    ("py", "py", "gen-py-a", "gen-py-b"),
    ("rs", "rs", "gen-rs-a", "gen-rs-b"),
)
REPOS = tuple(name for lang in LANGS for name in lang[2:])
SHARE_EVERY = 10  # one logical unit in SHARE_EVERY is written to both repos
UNITS_PER_DIR = 100  # logical units of one language per package directory
OPS = ("+", "-", "*", "^")
# `x = x OP K` lines per function, before its return, by language. Rust lines are longer, so
# Rust gets fewer: this way the six repositories come out at about the same size in bytes,
# and one zoekt-index -shard_limit cuts each into the same number of shards (scripts/test.sh
# relies on that).
BODY_STEPS = {"go": 18, "py": 16, "rs": 11}


def body_steps(lang, rng):
    """Return the (operator, constant) pairs of one function's extra body lines."""
    return [(rng.choice(OPS), rng.randrange(1, 1000)) for _ in range(BODY_STEPS[lang])]


def render(lang, pkg, unit, names, rng):
    """Return the source text of one file defining every name in `names`.

    Each function takes `x`, rebinds it BODY_STEPS[lang] times (`x = x + 5`), then returns
    an expression of it: BODY_STEPS[lang] + 2 lines holding the token `x` per function, and
    no other `x` anywhere in the file.
    """
    parts = []
    if lang == "go":
        parts.append("package %s\n\n// Generated unit %d.\n" % (pkg, unit))
        for name in names:
            steps = "".join("\tx = x %s %d\n" % s for s in body_steps(lang, rng))
            parts.append(
                "\nfunc %s(x int) int {\n%s\treturn x %s %d\n}\n"
                % (name, steps, rng.choice(OPS), rng.randrange(1, 1000))
            )
    elif lang == "py":
        parts.append('"""Generated unit %d."""\n' % unit)
        for name in names:
            steps = "".join("    x = x %s %d\n" % s for s in body_steps(lang, rng))
            parts.append(
                "\n\ndef %s(x):\n%s    return x %s %d\n"
                % (name, steps, rng.choice(OPS), rng.randrange(1, 1000))
            )
    else:
        parts.append("//! Generated unit %d.\n#![allow(non_snake_case)]\n" % unit)
        for name in names:
            steps = "".join("    let x = x %s %d;\n" % s for s in body_steps(lang, rng))
            parts.append(
                "\npub fn %s(x: i64) -> i64 {\n%s    x %s %d\n}\n"
                % (name, steps, rng.choice(OPS), rng.randrange(1, 1000))
            )
    return "".join(parts)


def generate(out_dir, total, seed):
    """Write `total` files under out_dir; return a dict of counts."""
    rng = random.Random(seed)
    made_dirs = set()
    per_repo = dict.fromkeys(REPOS, 0)
    written = 0
    definitions = 0
    next_sym = 1
    shared_files = 0
    unit = 0
    while written < total:
        lang, ext, repo_a, repo_b = LANGS[unit % len(LANGS)]
        lang_index = unit // len(LANGS)
        shared = lang_index % SHARE_EVERY == 0 and total - written >= 2
        if shared:
            targets = (repo_a, repo_b)
        else:
            targets = (repo_a if rng.random() < 0.5 else repo_b,)

        count = rng.randrange(1, 4)
        names = ["genSym%d" % (next_sym + i) for i in range(count)]
        next_sym += count

        pkg = "pkg%03d" % (lang_index // UNITS_PER_DIR)
        rel = os.path.join(pkg, "unit_%06d.%s" % (unit, ext))
        if lang == "rs":
            rel = os.path.join("src", rel)
        data = render(lang, pkg, unit, names, rng).encode("utf-8")

        for repo in targets:
            path = os.path.join(out_dir, repo, rel)
            parent = os.path.dirname(path)
            if parent not in made_dirs:
                os.makedirs(parent, exist_ok=True)
                made_dirs.add(parent)
            with open(path, "wb") as fh:
                fh.write(data)
            per_repo[repo] += 1
            written += 1
            definitions += count
        if shared:
            shared_files += 2
        unit += 1

    return {
        "files": written,
        "repos": sum(1 for n in per_repo.values() if n),
        "genSym_definitions": definitions,
        "unique_genSym": next_sym - 1,
        "shared_files": shared_files,
        "per_repo": per_repo,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Deterministically generate a multi-repo source corpus "
        "(Go/Python/Rust) whose files define genSym<N> functions."
    )
    parser.add_argument("out_dir", metavar="OUT_DIR", help="directory to create; must be absent or empty")
    parser.add_argument("--files", type=int, default=12000, metavar="N", help="number of files to write (default 12000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args(argv)

    if args.files < 1:
        parser.error("--files must be at least 1")
    if os.path.exists(args.out_dir):
        if not os.path.isdir(args.out_dir):
            parser.error("%s exists and is not a directory" % args.out_dir)
        if os.listdir(args.out_dir):
            parser.error("%s is not empty; refusing to write into it" % args.out_dir)

    stats = generate(args.out_dir, args.files, args.seed)
    print(" ".join("%s=%d" % (repo, n) for repo, n in stats["per_repo"].items()))
    print(
        "files=%d repos=%d genSym_definitions=%d unique_genSym=%d shared_files=%d out=%s"
        % (
            stats["files"],
            stats["repos"],
            stats["genSym_definitions"],
            stats["unique_genSym"],
            stats["shared_files"],
            args.out_dir,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
