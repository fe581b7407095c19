#!/usr/bin/env bash
# Installs tests/py's PyPI packages (the official Python MCP SDK, jsonschema) into a virtual
# environment, exactly as tests/py/requirements.txt pins them, and prints its python.
#
# Cheap when already done: the environment lives under ~/.cache/zoekt-pager/pyvenv-<hash of
# the requirements>, reused by every clone on this machine.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf 'py-deps.sh: %s\n' "$*" >&2; }
req="$ROOT/tests/py/requirements.txt"
hash="$(sha256sum "$req" | cut -c1-12)"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/zoekt-pager/pyvenv-$hash"
if [ -x "$venv/bin/python" ] && [ -f "$venv/.installed" ]; then
  echo "$venv/bin/python"
  exit 0
fi
python3 -c 'import venv' 2>/dev/null && python3 -m venv --help >/dev/null 2>&1 \
  || { say "python3 venv is missing: apt-get install python3-venv"; exit 1; }
say "creating $venv and installing $(tr '\n' ' ' <"$req")from PyPI"
rm -rf "$venv"
python3 -m venv "$venv" >&2 || { say "python3 -m venv failed: apt-get install python3-venv"; exit 1; }
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
touch "$venv/.installed"
echo "$venv/bin/python"
