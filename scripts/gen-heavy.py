#!/usr/bin/env python3
"""Generate a deterministic corpus of long files packed with symbols, for memory benchmarks.

Usage:
    gen-heavy.py OUT_DIR [--files N] [--lines L] [--seed S]

Writes N Go files (default 400) of L one-line functions each (default 2,500) into one
repository, `heavy`, a direct subfolder of OUT_DIR. Every line defines a function, so every
line is a ctags symbol: `search_symbols .` matches about N x L lines, and Zoekt's answer for a
few hundred files passes the pager's answer-size bound (--max-answer-bytes, 64 MiB), as the
answers of real repositories with very long generated files do. With a `kinds` filter that
matches nothing, no file yields an item, so a page grows its window to the end: the heaviest
single call the benchmark knows (scripts/bench-memory.py).

The output depends only on the arguments. Only the Python 3 standard library is used.
"""

import argparse
import os
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=400)
    ap.add_argument("--lines", type=int, default=2500)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if os.path.exists(a.out) and os.listdir(a.out):
        sys.exit(f"{a.out} is not empty")
    rng = random.Random(a.seed)
    n = 0
    for f in range(a.files):
        path = os.path.join(a.out, "heavy", f"pkg{f // 50:02d}", f"gen_{f:04d}.go")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        lines = [f"package pkg{f // 50:02d}", ""]
        for _ in range(a.lines):
            n += 1
            k = rng.randrange(1000)
            lines.append(f"func heavy{n}(x int) int {{ return x*{k} + {n % 97} }} // heavy {n}")
        with open(path, "w") as out:
            out.write("\n".join(lines) + "\n")
    print(f"files={a.files} functions={n} out={a.out}")


if __name__ == "__main__":
    main()
