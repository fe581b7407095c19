#!/usr/bin/env bash
# Brings a pinned, real Zoekt up on a corpus and down again.
#
#   scripts/zoekt.sh ctags            install universal-ctags (Debian) if missing and check it
#   scripts/zoekt.sh install          install ctags and the pinned zoekt-index/zoekt-webserver
#   scripts/zoekt.sh up [CORPUS]      install, index each folder of CORPUS (default
#                                     fixtures/corpus) as one repository, serve on loopback,
#                                     wait until /readyz says the shards are loaded. A folder
#                                     holding .git is indexed with zoekt-git-index (its
#                                     committed branches, see ZOEKT_GIT_BRANCHES), any other
#                                     with zoekt-index (the files on disk, no branches)
#   scripts/zoekt.sh serve INDEX      serve an existing index folder (no indexing), as `up`
#   scripts/zoekt.sh down             stop the webserver this script started
#   scripts/zoekt.sh url              print the URL of the running webserver
#   scripts/zoekt.sh pid              print its process id (exit 1 when it is not running)
#   scripts/zoekt.sh paths            print the webserver binary and the index folder, a line each
#   scripts/zoekt.sh version          print the pinned Zoekt version
#
# Exit codes: 0 ok; 1 failure (any failure to get a Zoekt is one).
#
# How Zoekt is installed: `go install` of the pinned version first (what a machine with
# internet gets). When the Go module proxy refuses the Zoekt module itself (it does on this
# project's machines, while serving all of Zoekt's dependencies), the same version is built
# from its source archive, ../shared/zoekt/zoekt-<version>.tar.gz by default, after checking
# the archive's sha256 against the one pinned below.
#
# Settings (env): ZOEKT_PORT (default 6070), ZOEKT_STATE_DIR (index, logs, pid; default .zoekt/
# in the repo), ZOEKT_BIN_CACHE (where pinned binaries are kept across clones; default
# ~/.cache/zoekt-pager/zoekt), ZOEKT_READY_TIMEOUT (seconds, default 90),
# ZOEKT_SOURCE_ARCHIVE (the source archive to build from when `go install` is refused; it
# must unpack to zoekt-<version>/), ZOEKT_SOURCE_SHA256 (that archive's checksum, when it is
# not the pinned one: an archive made with your own git and gzip has other bytes).
# Indexing (env, read by `up`): ZOEKT_SHARD_LIMIT (bytes of file names plus contents per
# shard, passed as `-shard_limit`; a repository bigger than that is split over several shards;
# unset or empty: Zoekt's default, 100 MiB), ZOEKT_GIT_BRANCHES (comma-separated branches that
# zoekt-git-index indexes in a git folder, passed as `-branches`; default HEAD).
set -euo pipefail

# A pseudo-version of github.com/sourcegraph/zoekt (no tags exist), and the sha256 of its
# `git archive` tarball. Change them here, in one place.
ZOEKT_VERSION="v0.0.0-20260807124253-c4d8f3537f7a"
ZOEKT_ARCHIVE_SHA256="d16c63ff6c048ba8f5ceb18bd8f21d1703ae6153baf9e80e8415dcb7cb1acf56"
ZOEKT_MODULE="github.com/sourcegraph/zoekt"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${ZOEKT_STATE_DIR:-$ROOT/.zoekt}"
# Binaries live outside the clone so a fresh CI checkout skips `go install`.
BIN="${ZOEKT_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zoekt-pager/zoekt}/$ZOEKT_VERSION"
INDEX="$STATE/index"
PORT="${ZOEKT_PORT:-6070}"
URL="http://127.0.0.1:$PORT"
PIDFILE="$STATE/webserver.pid"
LOG="$STATE/webserver.log"
READY_TIMEOUT="${ZOEKT_READY_TIMEOUT:-90}"
ARCHIVE="${ZOEKT_SOURCE_ARCHIVE:-$ROOT/../shared/zoekt/zoekt-$ZOEKT_VERSION.tar.gz}"
# An archive you made yourself has other bytes (gzip differs): name its checksum explicitly.
ARCHIVE_SHA256="${ZOEKT_SOURCE_SHA256:-$ZOEKT_ARCHIVE_SHA256}"

say() { printf 'zoekt.sh: %s\n' "$*" >&2; }

# Runs a long step, saying every 20 s that it is still running: go prints nothing for minutes
# while it compiles, and a newcomer's first command must not look stuck. The lines go to the
# script's own stderr (fd 3) even where the step's output is captured, and the ticker holds
# no captured pipe open.
exec 3>&2
ticking() {
  local what="$1" t0=$SECONDS rc=0 ticker
  shift
  (while sleep 20; do say "still $what ($((SECONDS - t0)) s)"; done) >&3 2>&3 &
  ticker=$!
  "$@" || rc=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  return "$rc"
}

ctags_bin() {
  local c
  for c in ctags-universal universal-ctags ctags; do
    if command -v "$c" >/dev/null && "$c" --version 2>/dev/null | grep -q "Universal Ctags"; then
      command -v "$c"; return
    fi
  done
}

install_ctags() {
  if [ -z "$(ctags_bin)" ]; then
    command -v apt-get >/dev/null || {
      say "universal-ctags is missing and this is not a Debian-like system: install Universal Ctags (with +json and +interactive) yourself"; exit 1; }
    say "installing universal-ctags (Debian package)"
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq universal-ctags >/dev/null
  fi
  local ctags; ctags="$(ctags_bin)"
  [ -n "$ctags" ] || { say "universal-ctags is still missing after apt-get"; exit 1; }
  # Zoekt needs +json and +interactive at index time.
  for feature in json interactive; do
    "$ctags" --list-features | grep -q "^$feature " || {
      say "$ctags lacks the +$feature feature Zoekt needs"; exit 1; }
  done
}

install_zoekt() {
  if [ -x "$BIN/zoekt-index" ] && [ -x "$BIN/zoekt-webserver" ] && [ -x "$BIN/zoekt-git-index" ]; then
    return 0
  fi
  command -v go >/dev/null || { say "Go is not installed: cannot build Zoekt (install Go 1.25.9 or newer first)"; exit 1; }
  # Build into a scratch folder and move the binaries in only when all of them exist, so an
  # interrupted build never leaves a half-filled cache that the check above would accept.
  local tmp; tmp="$(mktemp -d "${TMPDIR:-/tmp}/zoekt-build.XXXXXX")"
  # shellcheck disable=SC2064 # expand now: $tmp is local
  trap "rm -rf '$tmp'" EXIT
  local started=$SECONDS out
  say "installing Zoekt $ZOEKT_VERSION: trying go install"
  if out="$(ticking "trying go install" env GOBIN="$tmp/bin" GOFLAGS=-mod=mod go install \
      "$ZOEKT_MODULE/cmd/zoekt-index@$ZOEKT_VERSION" \
      "$ZOEKT_MODULE/cmd/zoekt-git-index@$ZOEKT_VERSION" \
      "$ZOEKT_MODULE/cmd/zoekt-webserver@$ZOEKT_VERSION" 2>&1)"; then
    say "go install of $ZOEKT_VERSION worked"
  else
    say "go install failed: $(grep -m1 -E 'Forbidden|not available|error|fatal' <<<"$out" || tail -1 <<<"$out")"
    build_from_archive "$tmp"
  fi
  mkdir -p "$BIN"
  mv -f "$tmp/bin/zoekt-index" "$tmp/bin/zoekt-git-index" "$tmp/bin/zoekt-webserver" "$BIN/"
  rm -rf "$tmp"
  say "Zoekt $ZOEKT_VERSION installed in $BIN ($((SECONDS - started))s)"
}

# Builds the pinned version from its source archive; Zoekt's dependencies still come from the
# Go module proxy. The archive's checksum is checked first: a different tree is refused.
build_from_archive() {
  local tmp="$1"
  [ -f "$ARCHIVE" ] || { say "no source archive at $ARCHIVE (set ZOEKT_SOURCE_ARCHIVE): cannot build Zoekt"; exit 1; }
  local sum; sum="$(sha256sum "$ARCHIVE" | cut -d' ' -f1)"
  [ "$sum" = "$ARCHIVE_SHA256" ] || {
    say "$ARCHIVE has sha256 $sum, expected $ARCHIVE_SHA256 for $ZOEKT_VERSION: refusing it"
    say "(for an archive of your own, set ZOEKT_SOURCE_SHA256 to its checksum)"; exit 1; }
  say "building Zoekt $ZOEKT_VERSION from $ARCHIVE (checksum ok)."
  say "A cold build takes a few minutes and downloads about 1.1 GB of Go modules; later builds take seconds."
  tar xzf "$ARCHIVE" -C "$tmp"
  local src="$tmp/zoekt-$ZOEKT_VERSION"
  [ -f "$src/go.mod" ] || { say "$ARCHIVE does not hold zoekt-$ZOEKT_VERSION/go.mod"; exit 1; }
  mkdir -p "$tmp/bin"
  (cd "$src" && ticking "building Zoekt (a cold build takes 2 to 5 minutes)" \
      env GOFLAGS=-mod=mod go build -trimpath -o "$tmp/bin/" \
      ./cmd/zoekt-index ./cmd/zoekt-git-index ./cmd/zoekt-webserver) \
    || { say "go build of $ZOEKT_VERSION from the archive failed"; exit 1; }
}

index_corpus() {
  local corpus="$1" ctags
  ctags="$(ctags_bin)"
  # -require_ctags: a broken ctags fails here instead of silently indexing no symbols.
  local common=(-require_ctags -index "$INDEX")
  if [ -n "${ZOEKT_SHARD_LIMIT:-}" ]; then
    [[ "$ZOEKT_SHARD_LIMIT" =~ ^[1-9][0-9]*$ ]] || {
      say "ZOEKT_SHARD_LIMIT must be a number of bytes, not '$ZOEKT_SHARD_LIMIT'"; exit 1; }
    common+=(-shard_limit "$ZOEKT_SHARD_LIMIT")
  fi
  rm -rf "$INDEX"; mkdir -p "$INDEX"
  local n=0 repo cmd
  for repo in "$corpus"/*/; do
    [ -d "$repo" ] || continue
    repo="${repo%/}"
    if [ -e "$repo/.git" ]; then
      # A git repository: its committed branches, not the work tree. zoekt-git-index names it
      # after the folder's basename, which wins over git config zoekt.name and the origin URL.
      cmd=("$BIN/zoekt-git-index" "${common[@]}" -branches "${ZOEKT_GIT_BRANCHES:-HEAD}" "$repo")
    else
      cmd=("$BIN/zoekt-index" "${common[@]}" "$repo")
    fi
    CTAGS_COMMAND="$ctags" "${cmd[@]}" >>"$STATE/index.log" 2>&1 \
      || { say "${cmd[0]##*/} failed on $repo (see $STATE/index.log)"; tail -20 "$STATE/index.log" >&2; exit 1; }
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || { say "no repository folders in $corpus"; exit 1; }
  say "indexed $n repositories from $corpus${ZOEKT_SHARD_LIMIT:+ (shard limit $ZOEKT_SHARD_LIMIT bytes)}"
}

# The pid in the pidfile, only while it is still a zoekt-webserver (a stale pidfile after a
# reboot may name an unrelated process by now).
running_pid() {
  local pid
  [ -f "$PIDFILE" ] || return 1
  pid="$(cat "$PIDFILE")"
  kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q zoekt-webserver \
    && echo "$pid"
}

wait_ready() {
  local deadline=$((SECONDS + READY_TIMEOUT)) code
  while [ $SECONDS -lt $deadline ]; do
    # Our own child, just started: alive is enough (its cmdline may not show the exec yet).
    kill -0 "$(cat "$PIDFILE")" 2>/dev/null || {
      say "zoekt-webserver exited (see $LOG)"; tail -20 "$LOG" >&2; return 1; }
    # /readyz, not /healthz: /healthz answers 200 while shards are still loading.
    code="$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz" || true)"
    [ "$code" = 200 ] && return 0
    sleep 0.2
  done
  say "zoekt-webserver was not ready after ${READY_TIMEOUT}s (see $LOG)"
  return 1
}

# Serves the index folder $INDEX (already filled) on $PORT until /readyz says it is loaded.
start_webserver() {
  # The watchdog would exit the server after failed self-checks; off for a test server. The
  # server keeps none of the script's descriptors (fd 3 is its stderr): a caller reading this
  # script's output through a pipe (`scripts/zoekt.sh up | tail`) would otherwise wait for the
  # server to exit.
  ZOEKT_WATCHDOG_ERRORS=0 nohup "$BIN/zoekt-webserver" -listen "127.0.0.1:$PORT" \
    -index "$INDEX" -rpc -html=false >"$LOG" 2>&1 3>&- </dev/null &
  echo $! >"$PIDFILE"
  wait_ready || { down; exit 1; }
  say "Zoekt $ZOEKT_VERSION is ready at $URL"
  echo "$URL"
}

serve() {
  INDEX="$(cd "${1:?serve needs an index folder}" && pwd)"
  install_zoekt
  down >/dev/null 2>&1 || true
  if curl -s -o /dev/null --max-time 2 "$URL/"; then
    say "something already answers at $URL: stop it, or choose another port with ZOEKT_PORT"; exit 1
  fi
  mkdir -p "$STATE"
  start_webserver
}

up() {
  local corpus="${1:-$ROOT/fixtures/corpus}"
  corpus="$(cd "$corpus" && pwd)"
  install_ctags
  install_zoekt
  down >/dev/null 2>&1 || true
  # Another server on this port would answer our readiness checks and the tests in its place.
  if curl -s -o /dev/null --max-time 2 "$URL/"; then
    say "something already answers at $URL: stop it, or choose another port with ZOEKT_PORT"; exit 1
  fi
  mkdir -p "$STATE"; : >"$STATE/index.log"
  index_corpus "$corpus"
  start_webserver
}

down() {
  local pid
  if pid="$(running_pid)"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    say "stopped zoekt-webserver ($pid)"
  fi
  rm -f "$PIDFILE"
}

command -v curl >/dev/null || { say "curl is missing (apt-get install curl)"; exit 1; }

case "${1:-}" in
  ctags) install_ctags ;;
  install) install_ctags; install_zoekt ;;
  up) shift; up "$@" ;;
  serve) shift; serve "$@" ;;
  # Indexes a corpus into this state folder's index without serving it (for a test that
  # starts its own webserver over it); prints the index folder.
  index) shift
    # Resolved before anything else: a folder that does not exist must stop here (inside the
    # call's arguments a failed `cd` left the corpus empty, and "/" was indexed).
    corpus="$(cd "${1:?index needs a corpus folder}" && pwd)" || { say "no folder $1"; exit 1; }
    install_ctags; install_zoekt; mkdir -p "$STATE"; : >"$STATE/index.log"
    index_corpus "$corpus"; echo "$INDEX" ;;
  down) down ;;
  url) echo "$URL" ;;
  pid) running_pid ;;
  version) echo "$ZOEKT_VERSION" ;;
  paths) printf '%s\n%s\n' "$BIN/zoekt-webserver" "$INDEX" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac
