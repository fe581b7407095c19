#!/usr/bin/env python3
"""Generate the tie corpus: repositories whose files score exactly the same in Zoekt.

Usage:
    gen-ties.py OUT_DIR [--repos N]

Writes N (default 40) repositories tie-00 .. tie-<N-1>, direct subfolders of OUT_DIR, each
meant to be indexed on its own with zoekt-index. Every repository holds the same files with
the same bytes:

    LICENSE             a licence text (a file-name tie: `search_files LICENSE`)
    README.md           one line holding tieReadmeProbe
    src/tiegroup.go     func TieGroupProbe (a symbol tie) and 3 lines holding tieLineProbe
    src/helper.go       func tieHelper, which calls TieGroupProbe once

Why they tie: Zoekt scores a file as 10^7 x its match score, plus 100 x the repository's rank
(0 for every repository indexed from a folder), plus 10 x (1 - doc / (docs in shard + 1)).
Identical repositories put each file at the same doc position in a shard of the same size, so
every copy of a file gets the same score, bit for bit. (The fixture corpus's twin-go files do NOT
tie with beta-go's: their shards differ in size.) The tests check the scores are equal.

Facts the tests rely on (N = 40):
    tieLineProbe      3 lines in each src/tiegroup.go: 120 line items in 40 files
    TieGroupProbe     1 definition per repository (40); as a whole word also on the doc
                      comment above it and in the call in helper.go: 40 definitions and
                      80 usages, 120 find_references items
    LICENSE           40 files named LICENSE
"""

import argparse
import os
import sys

LICENSE = """Tie corpus licence

Permission is granted to anyone to use these generated files for any purpose,
with or without change. They are test data for zoekt-pager and come with no
warranty of any kind.
"""

README = """# tie repository

Identical in every tie-NN repository: tieReadmeProbe.
"""

TIEGROUP = """package tie

// TieGroupProbe is defined once in each tie repository.
func TieGroupProbe() []string {
\treturn []string{
\t\t"tieLineProbe one",
\t\t"tieLineProbe two",
\t\t"tieLineProbe three",
\t}
}
"""

HELPER = """package tie

func tieHelper() int {
\treturn len(TieGroupProbe())
}
"""

FILES = {
    "LICENSE": LICENSE,
    "README.md": README,
    "src/tiegroup.go": TIEGROUP,
    "src/helper.go": HELPER,
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--repos", type=int, default=40)
    args = ap.parse_args()
    if os.path.exists(args.out) and os.listdir(args.out):
        print(f"{args.out} exists and is not empty", file=sys.stderr)
        return 1
    for i in range(args.repos):
        repo = os.path.join(args.out, f"tie-{i:02d}")
        for rel, text in FILES.items():
            path = os.path.join(repo, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
    print(f"repos={args.repos} files_per_repo={len(FILES)} out={args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
