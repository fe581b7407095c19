#!/usr/bin/env bash
# Generates a test corpus once: scripts/generate.sh SCRIPT OUT ARGS...
# SCRIPT is a generator (python .py or bash .sh) that writes a deterministic corpus to OUT from
# ARGS. A stamp in OUT/.done holds the generator's checksum and the arguments, so the corpus is
# made again only when either changed. Used by scripts/test.sh and scripts/bench.sh, which
# therefore share the corpora they both use.
set -euo pipefail
script="$1" out="$2"; shift 2
stamp="$(sha256sum "$script" | cut -d' ' -f1) $*"
if [ "$(cat "$out/.done" 2>/dev/null || true)" != "$stamp" ]; then
  rm -rf "$out"
  case "$script" in
    *.py) python3 "$script" "$out" "$@" >&2 ;;
    *) bash "$script" "$out" "$@" >&2 ;;
  esac
  printf '%s' "$stamp" >"$out/.done"
fi
