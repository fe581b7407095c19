#!/usr/bin/env bash
# Test corpora of REAL code, indexed two ways, for what depends on how results cluster in real
# source trees (suggested ways to narrow, above all). Generated corpora put every result in a
# small file of its own; real code puts a broad query's first thirty results in one or two
# files, and its next thousand in a few hundred.
#
#   scripts/real-corpora.sh build     make both corpora and their indexes (cached: seconds after
#                                     the first run, which takes about ten minutes)
#   scripts/real-corpora.sh up        build, then serve both: prints `many=URL` and `mono=URL`
#   scripts/real-corpora.sh down      stop both webservers
#   scripts/real-corpora.sh check     up, then scripts/check-census-real.py against both with the
#                                     release build: the census's must-shows (page 1's Zoekt
#                                     requests and time against raw Zoekt, the census's coverage
#                                     and counts, queries Zoekt cannot finish, reaching chosen
#                                     files by suggestions alone, count_only), with numbers
#                                     (writes docs/bench/census-real.md; an hour or more), then
#                                     down. Extra arguments go to the checker (--rounds N,
#                                     --only 1,2,3,4,5, --report-only).
#
# The source trees are those this machine already has once the project's own steps ran. `mono`
# is ONE repository, `monorepo`, laid out like a company monorepo (about 91,000 files):
#   go-toolchain/            Go's own tree, $(go env GOROOT), without its compiled pkg/ and bin/
#                            (go-toolchain/src/net/http/server.go)
#   go-modules/<name>/       each module of the Go module cache (GOMODCACHE, filled by building
#                            Zoekt: scripts/zoekt.sh install), named without its host
#                            (go-modules/x-sys@v0.38.0/)
#   rust-crates/<crate>/     each crate cargo downloaded for this project (cargo fetch --locked)
#                            (rust-crates/tokio-1.54.1/)
#   python/<version>/        the standard library of each Python under ~/.pyenv/versions
#                            (PYENV_ROOT), without site-packages (python/3.11/)
#   npm/<package>/           each package of tests/ts/node_modules (scripts/ts-deps.sh)
#                            (npm/@modelcontextprotocol/sdk/)
#   c-include/               /usr/include (c-include/stdio.h)
# `many` holds the same trees, each a repository of its own (about 680): `go-toolchain`,
# `x-sys@v0.38.0`, `tokio-1.54.1`, `python-3.11`, `npm-@modelcontextprotocol-sdk` (a scoped
# name's '/' written '-'), `c-include`.
# Left out everywhere, as a real monorepo would not commit them: files over 1 MiB, compiled
# files (.pyc, .so, .o, .a, .node) and any other file grep calls binary (a NUL byte in its first
# 32 KiB), __pycache__, .bin and .git folders, and symlinks that lead out of their tree (or
# nowhere). Files are hard links into those trees (copies where a link is refused), under
# REAL_CORPORA_DIR (default ~/.cache/zoekt-pager/real-corpora), rebuilt when the set of trees
# or the layout (LAYOUT below) changes. `build` prints the files per top folder of `mono`.
#
# Settings (env): REAL_CORPORA_DIR; REAL_MANY_PORT (default 6091), REAL_MONO_PORT (6092).
# Not part of scripts/test.sh (indexing takes minutes): run it before saying a change to
# anything that depends on how results are distributed is done.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIR="${REAL_CORPORA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/zoekt-pager/real-corpora}"
MANY_PORT="${REAL_MANY_PORT:-6091}"
MONO_PORT="${REAL_MONO_PORT:-6092}"
# The first line of trees.tsv, the cache key: change it whenever link_tree leaves out other
# files or the folders move, so a corpus built the old way is rebuilt.
LAYOUT="# layout 2: monorepo/{go-toolchain,go-modules,rust-crates,python,npm,c-include}; no files over 1 MiB, binaries, __pycache__, .bin, .git, outward symlinks"

say() { printf 'real-corpora.sh: %s\n' "$*" >&2; }

# Says every 30 s that a long step is alive (zoekt-index prints nothing while it works on one
# big repository): `tick_start WHAT` starts it, `tick_stop` ends it.
ticker=""
tick_start() {
  local what="$1" t0=$SECONDS
  (while sleep 30; do say "  still $what ($((SECONDS - t0)) s)"; done) &
  ticker=$!
}
tick_stop() {
  [ -n "$ticker" ] || return 0
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  ticker=""
}
# A failing step must not leave its ticker talking after the script is gone.
trap tick_stop EXIT

# Every source tree, one per line: NAME<TAB>MONO<TAB>PATH<TAB>LEAVE_OUT. NAME is its repository
# in `many`, MONO its folder in `monorepo`, LEAVE_OUT the top-level entries of PATH left out
# (comma-separated, '-' for none).
trees() {
  local modcache goroot registry dir rel name lib
  modcache="$(go env GOMODCACHE)"
  goroot="$(go env GOROOT)"
  # GOROOT whole but pkg/ (compiled packages and tools) and bin/ (go, gofmt): src, misc, test,
  # api, doc, lib and the few files at its top.
  printf 'go-toolchain\tgo-toolchain\t%s\tbin,pkg\n' "$goroot"
  # Go modules: folders named path@version, anywhere under the cache (nested module paths are
  # folders of their own, never inside another module's folder). The name drops the host and
  # joins the rest with '-': golang.org/x/sys@v0.38.0 is x-sys@v0.38.0.
  find "$modcache" -path "$modcache/cache" -prune -o -type d -name '*@*' -print -prune | sort |
    while read -r dir; do
      rel="${dir#"$modcache"/}"
      name="${rel#*/}"
      name="${name//\//-}"
      printf '%s\tgo-modules/%s\t%s\t-\n' "$name" "$name" "$dir"
    done
  for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
    [ -d "$registry" ] || continue
    for dir in "$registry"*/; do
      dir="${dir%/}"
      printf '%s\trust-crates/%s\t%s\t-\n' "${dir##*/}" "${dir##*/}" "$dir"
    done
  done | sort -u -t$'\t' -k1,1
  # Each Python's standard library, named by its lib/pythonX.Y folder: what pip installed
  # (site-packages) is no part of it.
  for lib in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/*/lib/python[0-9]*/; do
    [ -d "$lib" ] || continue
    lib="${lib%/}"
    name="${lib##*/python}"
    printf 'python-%s\tpython/%s\t%s\tsite-packages\n' "$name" "$name" "$lib"
  done | sort -t$'\t' -k1,1V
  # npm packages, scoped ones (@scope/name) a level deeper; .bin holds only links to scripts.
  for dir in tests/ts/node_modules/[!@.]*/ tests/ts/node_modules/@*/*/; do
    [ -d "$dir" ] || continue
    dir="${dir%/}"
    name="${dir#tests/ts/node_modules/}"
    printf 'npm-%s\tnpm/%s\t%s\t-\n' "${name//\//-}" "$name" "$ROOT/$dir"
  done
  if [ -d /usr/include ]; then printf 'c-include\tc-include\t/usr/include\t-\n'; fi
}

# Hard-links into DEST the files of the tree SRC that a monorepo would hold, leaving out the
# top-level entries LEAVE_OUT (comma-separated, '-' for none); copies where a link is refused
# (another file system; fs.protected_hardlinks for files of another user).
link_tree() {
  local src="$1" dest="$2" leave="$3" real lst="$DIR/files.lst" rel target top
  local tops=() prune=()
  if [ "$leave" != - ]; then
    IFS=, read -ra tops <<<"$leave"
    for top in "${tops[@]}"; do prune+=(-path "./$top" -o); done
  fi
  prune=(\( "${prune[@]}" -name __pycache__ -o -name .bin -o -name .git \) -prune -o)
  real="$(realpath -e -- "$src")"
  # Regular files up to 1 MiB, not compiled (the NUL test below catches the rest).
  (cd "$src" && find . "${prune[@]}" -type f -size -1048577c \
    ! \( -name '*.pyc' -o -name '*.pyo' -o -name '*.so' -o -name '*.so.*' -o -name '*.o' \
    -o -name '*.a' -o -name '*.node' \) -print0) >"$lst"
  # Symlinks whose target exists inside the tree (Zoekt indexes a link as its target's name);
  # one leading out would show a file the tree does not hold.
  (cd "$src" && find . "${prune[@]}" -type l -print0) | while IFS= read -r -d '' rel; do
    target="$(realpath -e -q -- "$src/$rel")" || continue
    case "$target/" in "$real"/*) printf '%s\0' "$rel" ;; esac
  done >>"$lst"
  mkdir -p "$dest"
  if ! (cd "$src" && xargs -0 -r cp -al --parents -t "$dest" <"$lst") 2>/dev/null; then
    # Start over: cp -a onto a half-linked tree would write through links into the original.
    rm -rf "$dest"
    mkdir -p "$dest"
    (cd "$src" && xargs -0 -r cp -a --parents -t "$dest" <"$lst")
  fi
  # The folders are new (never links), and read-only ones (the module cache's) would keep
  # the files below from being removed, here and by the next rebuild.
  find "$dest" -type d ! -perm -u+w -exec chmod u+w {} +
  # Binary files (a NUL byte in grep's first buffer; C locale, so no "encoding errors"): Zoekt
  # would keep each as a skipped document, a file name with no content. grep -L -I lists them
  # and the empty files, which stay.
  { LC_ALL=C grep -rLIZ -e '' -- "$dest" || true; } | while IFS= read -r -d '' rel; do
    if [ -s "$rel" ]; then rm -f -- "$rel"; fi
  done
}

build() {
  command -v go >/dev/null || { say "go is missing (Zoekt is built with it)"; exit 1; }
  # The trees themselves: Zoekt's build fills the module cache, cargo fetch the registry,
  # scripts/ts-deps.sh tests/ts/node_modules.
  scripts/zoekt.sh install
  say "fetching this project's crates (cargo fetch --locked)"
  cargo fetch --locked --quiet
  if [ ! -d tests/ts/node_modules ]; then scripts/ts-deps.sh; fi
  mkdir -p "$DIR"
  local list="$DIR/trees.tsv.new"
  # Names (and folders in `monorepo`) must be unique: a repeated one gets the next free suffix.
  {
    echo "$LAYOUT"
    trees | awk -F'\t' -v OFS='\t' '{
      n = $1; while (seen[n]++) n = $1 "~" seen[$1]; $1 = n
      m = $2; while (mseen[m]++) m = $2 "~" mseen[$2]; $2 = m
      print }'
  } >"$list"
  if [ -f "$DIR/trees.tsv" ] && cmp -s "$list" "$DIR/trees.tsv" && [ -f "$DIR/many.done" ] &&
    [ -f "$DIR/mono.done" ]; then
    rm -f "$list"
    say "corpora up to date in $DIR ($(($(wc -l <"$DIR/trees.tsv") - 1)) trees," \
      "$(awk 'END { print $1 }' "$DIR/mono.files" 2>/dev/null) files in 'mono')"
    return
  fi
  # Read-only folders (a corpus built before they were made writable) would stop rm -rf.
  for dir in "$DIR/many" "$DIR/mono"; do
    if [ -d "$dir" ]; then find "$dir" -type d ! -perm -u+w -exec chmod u+w {} +; fi
  done
  rm -rf "$DIR/many" "$DIR/mono" "$DIR/many-index" "$DIR/mono-index" "$DIR"/*.done \
    "$DIR/mono.files" "$DIR/index.log"
  mkdir -p "$DIR/many" "$DIR/mono/monorepo"
  local n total started=$SECONDS said=$SECONDS i=0 name mono path leave
  n="$(grep -vc '^#' "$list")"
  say "linking $n source trees into $DIR (a line each 30 s)"
  while IFS=$'\t' read -r name mono path leave; do
    link_tree "$path" "$DIR/many/$name" "$leave"
    # `mono` links the very same (already filtered) files.
    mkdir -p "$(dirname "$DIR/mono/monorepo/$mono")"
    cp -al "$DIR/many/$name" "$DIR/mono/monorepo/$mono" 2>/dev/null ||
      cp -a "$DIR/many/$name" "$DIR/mono/monorepo/$mono"
    i=$((i + 1))
    if [ $((SECONDS - said)) -ge 30 ]; then
      say "  $i of $n trees linked ($((SECONDS - started)) s)"
      said=$SECONDS
    fi
  done < <(grep -v '^#' "$list")
  rm -f "$DIR/files.lst"
  # Files per top folder of `mono` (symlinks too: Zoekt indexes each as a document).
  for dir in "$DIR/mono/monorepo"/*/; do
    printf '%7d  %s/\n' "$(find "$dir" -type f -o -type l | wc -l)" "$(basename "$dir")"
  done >"$DIR/mono.files"
  total="$(awk '{ s += $1 } END { print s }' "$DIR/mono.files")"
  printf '%7d  files in monorepo\n' "$total" >>"$DIR/mono.files"
  say "$n source trees linked in $((SECONDS - started)) s; files per top folder of 'mono':"
  cat "$DIR/mono.files" >&2
  local bin ctags
  bin="$(dirname "$(scripts/zoekt.sh paths | head -1)")"
  ctags="$(command -v ctags-universal || command -v ctags)"
  mkdir -p "$DIR/many-index" "$DIR/mono-index"
  started=$SECONDS
  say "indexing 'many': $n repositories (minutes; a line each 50 repositories)"
  # One zoekt-index per 50 repositories: one per repository pays its start-up hundreds of
  # times, one for all gives no sign of progress.
  local batch=()
  index_many() {
    CTAGS_COMMAND="$ctags" "$bin/zoekt-index" -require_ctags -index "$DIR/many-index" \
      "$@" >>"$DIR/index.log" 2>&1 || { say "zoekt-index failed (see $DIR/index.log)"; exit 1; }
  }
  i=0
  tick_start "indexing 'many'"
  for dir in "$DIR/many"/*/; do
    batch+=("${dir%/}")
    i=$((i + 1))
    if [ ${#batch[@]} -eq 50 ]; then
      index_many "${batch[@]}"
      say "  $i of $n repositories ($((SECONDS - started)) s)"
      batch=()
    fi
  done
  if [ ${#batch[@]} -gt 0 ]; then index_many "${batch[@]}"; fi
  tick_stop
  touch "$DIR/many.done"
  say "indexed 'many' in $((SECONDS - started)) s ($(du -sh "$DIR/many-index" | cut -f1));" \
    "indexing 'mono' (one repository of $total files, minutes)"
  started=$SECONDS
  tick_start "indexing 'mono'"
  CTAGS_COMMAND="$ctags" "$bin/zoekt-index" -require_ctags -index "$DIR/mono-index" \
    "$DIR/mono/monorepo" >>"$DIR/index.log" 2>&1 || { say "zoekt-index failed (see $DIR/index.log)"; exit 1; }
  tick_stop
  touch "$DIR/mono.done"
  mv "$list" "$DIR/trees.tsv"
  say "indexed 'mono' in $((SECONDS - started)) s ($(du -sh "$DIR/mono-index" | cut -f1))"
}

serve_one() {
  local name="$1" port="$2"
  ZOEKT_STATE_DIR="$DIR/state-$name" ZOEKT_PORT="$port" ZOEKT_READY_TIMEOUT=300 \
    scripts/zoekt.sh serve "$DIR/$name-index"
}

up() {
  build
  echo "many=$(serve_one many "$MANY_PORT")"
  echo "mono=$(serve_one mono "$MONO_PORT")"
}

down() {
  ZOEKT_STATE_DIR="$DIR/state-many" scripts/zoekt.sh down || true
  ZOEKT_STATE_DIR="$DIR/state-mono" scripts/zoekt.sh down || true
}

check() {
  local urls
  urls="$(up)"
  trap down EXIT
  say "building the release binary"
  cargo build --release --locked --bin zoekt-pager
  local bin="${CARGO_TARGET_DIR:-target}/release/zoekt-pager"
  local args=()
  for u in $urls; do args+=(--zoekt "$u"); done
  python3 scripts/check-census-real.py --bin "$bin" "${args[@]}" \
    --markdown docs/bench/census-real.md "$@"
}

case "${1:-}" in
  build) build ;;
  up) up ;;
  down) down ;;
  check) shift; check "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac
