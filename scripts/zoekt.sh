#!/usr/bin/env bash
# Brings a pinned, real Zoekt up on a corpus and down again.
#
#   scripts/zoekt.sh ctags            install universal-ctags (Debian) if missing and check it
#   scripts/zoekt.sh install          install ctags and the pinned zoekt-index/zoekt-webserver
#   scripts/zoekt.sh up [CORPUS]      install, index each folder of CORPUS (default
#                                     fixtures/corpus) as one repository, serve on loopback,
#                                     wait until /readyz says the shards are loaded
#   scripts/zoekt.sh down             stop the webserver this script started
#   scripts/zoekt.sh url              print the URL of the running webserver
#   scripts/zoekt.sh paths            print the webserver binary and the index folder
#
# Exit codes: 0 ok; 1 failure; 4 the Go module proxy refuses to serve Zoekt (nothing this
# script can fix; .ci/run reports it separately).
#
# Settings (env): ZOEKT_PORT (default 6070), ZOEKT_STATE_DIR (index, logs, pid; default .zoekt/
# in the repo), ZOEKT_BIN_CACHE (where pinned binaries are kept across clones; default
# ~/.cache/zoekt-pager/zoekt), ZOEKT_READY_TIMEOUT (seconds, default 90).
set -euo pipefail

# A pseudo-version of github.com/sourcegraph/zoekt (no tags exist). Change it in one place.
ZOEKT_VERSION="v0.0.0-20260724095353-2b2ce2e398e6"
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

say() { printf 'zoekt.sh: %s\n' "$*" >&2; }

ctags_bin() {
  command -v ctags-universal || command -v universal-ctags || true
}

install_ctags() {
  if [ -z "$(ctags_bin)" ]; then
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
  if [ -x "$BIN/zoekt-index" ] && [ -x "$BIN/zoekt-webserver" ]; then
    return 0
  fi
  command -v go >/dev/null || { say "Go is not installed: cannot build Zoekt"; exit 1; }
  say "installing Zoekt $ZOEKT_VERSION with go install"
  mkdir -p "$BIN"
  local out
  if ! out="$(GOBIN="$BIN" GOFLAGS=-mod=mod go install \
      "$ZOEKT_MODULE/cmd/zoekt-index@$ZOEKT_VERSION" \
      "$ZOEKT_MODULE/cmd/zoekt-webserver@$ZOEKT_VERSION" 2>&1)"; then
    printf '%s\n' "$out" >&2
    if grep -q "403 Forbidden" <<<"$out"; then
      say "the Go module proxy refuses $ZOEKT_MODULE (HTTP 403): Zoekt cannot be installed here"
      exit 4
    fi
    say "go install failed"
    exit 1
  fi
}

index_corpus() {
  local corpus="$1" ctags
  ctags="$(ctags_bin)"
  rm -rf "$INDEX"; mkdir -p "$INDEX"
  local n=0
  for repo in "$corpus"/*/; do
    [ -d "$repo" ] || continue
    # -require_ctags: a broken ctags fails here instead of silently indexing no symbols.
    CTAGS_COMMAND="$ctags" "$BIN/zoekt-index" -require_ctags -index "$INDEX" "${repo%/}" >>"$STATE/index.log" 2>&1 \
      || { say "zoekt-index failed on $repo (see $STATE/index.log)"; tail -20 "$STATE/index.log" >&2; exit 1; }
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || { say "no repository folders in $corpus"; exit 1; }
  say "indexed $n repositories from $corpus"
}

running_pid() {
  [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null && cat "$PIDFILE"
}

wait_ready() {
  local deadline=$((SECONDS + READY_TIMEOUT)) code
  while [ $SECONDS -lt $deadline ]; do
    running_pid >/dev/null || { say "zoekt-webserver exited (see $LOG)"; tail -20 "$LOG" >&2; return 1; }
    code="$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz" || true)"
    # Builds without /readyz answer 404: fall back to /healthz, which runs a real search.
    if [ "$code" = 404 ]; then
      code="$(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz" || true)"
    fi
    [ "$code" = 200 ] && return 0
    sleep 0.2
  done
  say "zoekt-webserver was not ready after ${READY_TIMEOUT}s (see $LOG)"
  return 1
}

up() {
  local corpus="${1:-$ROOT/fixtures/corpus}"
  corpus="$(cd "$corpus" && pwd)"
  install_ctags
  install_zoekt
  down >/dev/null 2>&1 || true
  mkdir -p "$STATE"; : >"$STATE/index.log"
  index_corpus "$corpus"
  # The watchdog would exit the server after failed self-checks; off for a test server.
  ZOEKT_WATCHDOG_ERRORS=0 nohup "$BIN/zoekt-webserver" -listen "127.0.0.1:$PORT" \
    -index "$INDEX" -rpc -html=false >"$LOG" 2>&1 &
  echo $! >"$PIDFILE"
  wait_ready || { down; exit 1; }
  say "Zoekt $ZOEKT_VERSION is ready at $URL"
  echo "$URL"
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

case "${1:-}" in
  ctags) install_ctags ;;
  install) install_ctags; install_zoekt ;;
  up) shift; up "$@" ;;
  down) down ;;
  url) echo "$URL" ;;
  paths) echo "$BIN/zoekt-webserver $INDEX" ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
