#!/usr/bin/env bash
# Generate a small, deterministic two-branch git repository for Zoekt branch tests.
#
#   scripts/gen-branches.sh OUT_DIR
#
# Creates OUT_DIR/branchy, a git repository (work tree checked out on main) with two branches.
# main has one commit; dev has one more commit on top of it. Index it with zoekt-git-index
# -branches main,dev (scripts/zoekt.sh does, with ZOEKT_GIT_BRANCHES=main,dev); Zoekt names
# the repository `branchy`, after the folder.
#
#   file            main                          dev
#   src/same.go     identical bytes on both branches: func Same (line 4),
#                   branchProbe on line 5 (1 line)
#   src/differs.go  func Differs (line 4),        func Differs (line 5), branchProbe on
#                   branchProbe on line 5          lines 7 and 9 (2 lines)
#                   (1 line)
#   src/devonly.go  absent                        func DevOnly (line 4),
#                                                 branchProbe on line 5 (1 line)
#
# So `branchProbe` is on 2 lines in 2 files of main and on 4 lines in 3 files of dev. These three
# paths are the only files on either branch. Zoekt keeps one document per distinct blob (4 in
# all), and /api/search for `branchProbe` gives 4 FileMatches, 5 lines, all in repository
# `branchy`: src/same.go (Branches [main dev], line 5), src/devonly.go ([dev], 5),
# src/differs.go ([main], 5) and src/differs.go again ([dev], 7 and 9). The two differs.go
# matches share repository and path; only Branches (and Version, the branch's commit) tell them
# apart. `branch:dev` / `branch:main` keep 3 / 2 of them, with Branches cut to that branch.
# `sym:Differs` gives both differs.go versions (func, lines 4 and 5); `sym:Same` and
# `sym:DevOnly` one file each (line 4). Every file also has the symbol `branchy` (package).
#
# Deterministic: fixed author, committer, dates and messages, no user or system git config, so
# the commit ids are the same on every run and machine. OUT_DIR must not exist or must be
# empty; nothing is written anywhere else. The last line printed is a summary:
#
#   branches=main,dev main=<commit> dev=<commit> out=OUT_DIR/branchy
set -euo pipefail

say() { printf 'gen-branches.sh: %s\n' "$*" >&2; }
[ $# -eq 1 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2; }
command -v git >/dev/null || { say "git is missing"; exit 1; }
out="$1"
if [ -e "$out" ]; then
  [ -d "$out" ] || { say "$out exists and is not a directory"; exit 1; }
  [ -z "$(ls -A "$out")" ] || { say "$out is not empty; refusing to write into it"; exit 1; }
fi
repo="$out/branchy"
mkdir -p "$repo/src"

# Nothing from the caller's git setup: no config files, fixed identity and dates.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Branchy Author" GIT_AUTHOR_EMAIL="author@branchy.invalid"
export GIT_COMMITTER_NAME="Branchy Committer" GIT_COMMITTER_EMAIL="committer@branchy.invalid"
g() { git -C "$repo" "$@"; }
commit() { # commit DATE MESSAGE
  GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" g commit -q --no-verify -m "$2"
}

git -c init.defaultBranch=main init -q --template= "$repo"

cat >"$repo/src/same.go" <<'EOF'
package branchy

// Same is identical on main and dev.
func Same(x int) int {
	return x + 1 // branchProbe same
}
EOF
cat >"$repo/src/differs.go" <<'EOF'
package branchy

// Differs has another body on each branch.
func Differs(x int) int {
	return x * 2 // branchProbe main
}
EOF
g add src/same.go src/differs.go
commit "2024-01-01T00:00:00Z" "main: same.go and differs.go"

g checkout -q -b dev
cat >"$repo/src/differs.go" <<'EOF'
package branchy

// Differs has another body on each branch.
// On dev it takes two steps.
func Differs(x int) int {
	y := x * 3
	// branchProbe dev, first
	y = y + 1
	return y // branchProbe dev, second
}
EOF
cat >"$repo/src/devonly.go" <<'EOF'
package branchy

// DevOnly exists on dev only.
func DevOnly(x int) int {
	return x - 1 // branchProbe devonly
}
EOF
g add src/differs.go src/devonly.go
commit "2024-01-02T00:00:00Z" "dev: differs.go changed, devonly.go added"
g checkout -q main

printf 'branches=main,dev main=%s dev=%s out=%s\n' \
  "$(g rev-parse main)" "$(g rev-parse dev)" "$repo"
