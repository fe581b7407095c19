#!/usr/bin/env bash
# Test corpora of REAL code, indexed two ways, for what depends on how results cluster in real
# source trees (suggested ways to narrow, above all). Generated corpora put every result in a
# small file of its own; real code puts a broad query's first thirty results in one or two
# files, and its next thousand in a few hundred.
#
#   scripts/real-corpora.sh build     make both corpora and their indexes (cached: seconds after
#                                     the first run, which takes several minutes)
#   scripts/real-corpora.sh up        build, then serve both: prints `many=URL` and `mono=URL`
#   scripts/real-corpora.sh down      stop both webservers
#   scripts/real-corpora.sh check     up, then scripts/check-narrow-real.py against both with the
#                                     release build: the suggestions' must-shows, with numbers
#                                     (writes docs/bench/narrow-real.md), then down. Extra
#                                     arguments go to the checker (--bench adds the latency
#                                     table, --rounds N).
#
# The source trees are those this machine already has once the project's own steps ran:
# - the Go module cache (GOMODCACHE), filled by building Zoekt (scripts/zoekt.sh install):
#   each module at its version is one repository (`x-sys@v0.38.0`);
# - the crates cargo downloaded for this project (cargo fetch --locked): each crate at its
#   version is one repository (`tokio-1.54.1`);
# - Go's own source tree, $(go env GOROOT)/src: one repository, `go-src`.
# `many` indexes each of those as a repository of its own (hundreds of them); `mono` indexes
# them all as ONE repository, `monorepo` (tens of thousands of files, Go and Rust). Both are
# hard links into those trees (no copy), under REAL_CORPORA_DIR (default
# ~/.cache/zoekt-pager/real-corpora), rebuilt when the set of trees changes.
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

say() { printf 'real-corpora.sh: %s\n' "$*" >&2; }

# Every source tree, one per line: NAME<TAB>PATH.
trees() {
  local modcache goroot registry dir rel name
  modcache="$(go env GOMODCACHE)"
  goroot="$(go env GOROOT)"
  # Go modules: folders named path@version, anywhere under the cache (nested module paths are
  # folders of their own, never inside another module's folder). The name drops the host and
  # joins the rest with '-': golang.org/x/sys@v0.38.0 is x-sys@v0.38.0.
  find "$modcache" -path "$modcache/cache" -prune -o -type d -name '*@*' -print -prune | sort |
    while read -r dir; do
      rel="${dir#"$modcache"/}"
      name="${rel#*/}"
      printf '%s\t%s\n' "${name//\//-}" "$dir"
    done
  for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
    [ -d "$registry" ] || continue
    for dir in "$registry"*/; do
      dir="${dir%/}"
      printf '%s\t%s\n' "${dir##*/}" "$dir"
    done
  done | sort -u -t$'\t' -k1,1
  printf 'go-src\t%s\n' "$goroot/src"
}

build() {
  command -v go >/dev/null || { say "go is missing (Zoekt is built with it)"; exit 1; }
  # The trees themselves: Zoekt's build fills the module cache, cargo fetch the registry.
  scripts/zoekt.sh install
  say "fetching this project's crates (cargo fetch --locked)"
  cargo fetch --locked --quiet
  mkdir -p "$DIR"
  local list="$DIR/trees.tsv.new"
  trees >"$list"
  # Names must be unique: a repeated one gets the next free suffix.
  awk -F'\t' '{ n = $1; while (seen[n]++) n = $1 "~" seen[$1]; print n "\t" $2 }' "$list" >"$list.u"
  mv "$list.u" "$list"
  if [ -f "$DIR/trees.tsv" ] && cmp -s "$list" "$DIR/trees.tsv" && [ -f "$DIR/many.done" ] &&
    [ -f "$DIR/mono.done" ]; then
    rm -f "$list"
    say "corpora up to date in $DIR ($(wc -l <"$DIR/trees.tsv") trees)"
    return
  fi
  rm -rf "$DIR/many" "$DIR/mono" "$DIR/many-index" "$DIR/mono-index" "$DIR"/*.done
  mkdir -p "$DIR/many" "$DIR/mono/monorepo"
  local n=0 name path
  while IFS=$'\t' read -r name path; do
    # Hard links where the trees share the file system, a copy where they do not.
    cp -al "$path" "$DIR/many/$name" 2>/dev/null || cp -a "$path" "$DIR/many/$name"
    cp -al "$DIR/many/$name" "$DIR/mono/monorepo/$name"
    n=$((n + 1))
  done <"$list"
  say "$n source trees linked; $(find "$DIR/many" -type f | wc -l) files"
  local bin ctags
  bin="$(dirname "$(scripts/zoekt.sh paths | head -1)")"
  ctags="$(command -v ctags-universal || command -v ctags)"
  mkdir -p "$DIR/many-index" "$DIR/mono-index"
  local started=$SECONDS
  say "indexing 'many': $n repositories (a few minutes; a line each 50 repositories)"
  local i=0 batch=()
  for dir in "$DIR/many"/*/; do
    batch+=("${dir%/}")
    i=$((i + 1))
    if [ ${#batch[@]} -eq 50 ]; then
      CTAGS_COMMAND="$ctags" "$bin/zoekt-index" -require_ctags -index "$DIR/many-index" \
        "${batch[@]}" >>"$DIR/index.log" 2>&1 || { say "zoekt-index failed (see $DIR/index.log)"; exit 1; }
      say "  $i of $n repositories ($((SECONDS - started)) s)"
      batch=()
    fi
  done
  if [ ${#batch[@]} -gt 0 ]; then
    CTAGS_COMMAND="$ctags" "$bin/zoekt-index" -require_ctags -index "$DIR/many-index" \
      "${batch[@]}" >>"$DIR/index.log" 2>&1 || { say "zoekt-index failed (see $DIR/index.log)"; exit 1; }
  fi
  touch "$DIR/many.done"
  say "indexed 'many' in $((SECONDS - started)) s; indexing 'mono' (one repository, a few minutes)"
  started=$SECONDS
  # zoekt-index prints nothing while it works on one big repository: say it is alive.
  (while sleep 30; do say "  still indexing 'mono' ($((SECONDS - started)) s)"; done) &
  local ticker=$!
  CTAGS_COMMAND="$ctags" "$bin/zoekt-index" -require_ctags -index "$DIR/mono-index" \
    "$DIR/mono/monorepo" >>"$DIR/index.log" 2>&1 || {
    kill "$ticker"; say "zoekt-index failed (see $DIR/index.log)"; exit 1; }
  kill "$ticker" 2>/dev/null || true
  touch "$DIR/mono.done"
  mv "$list" "$DIR/trees.tsv"
  say "indexed 'mono' in $((SECONDS - started)) s"
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
  python3 scripts/check-narrow-real.py --bin "$bin" "${args[@]}" \
    --markdown docs/bench/narrow-real.md "$@"
}

case "${1:-}" in
  build) build ;;
  up) up ;;
  down) down ;;
  check) shift; check "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac
