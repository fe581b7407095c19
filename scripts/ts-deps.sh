#!/usr/bin/env bash
# Installs tests/ts's npm packages exactly as tests/ts/package-lock.json pins them (`npm ci`):
# the TypeScript MCP SDK, the MCP conformance suite, and Node 22 itself as the npm package
# `node` (tests/ts/node_modules/.bin/node), so no system Node 22 is needed, only some npm.
#
# Cheap when already done: skipped while node_modules holds an install of this very lock (a
# stamp with the sha256 of package.json and package-lock.json). Downloads are kept in npm's
# cache under ~/.cache/zoekt-pager/npm (NPM_CONFIG_CACHE to move it), so an install in a
# fresh clone needs no network.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/tests/ts"
say() { printf 'ts-deps.sh: %s\n' "$*" >&2; }

command -v npm >/dev/null || { say "npm is missing: install any Node.js with npm (it only runs npm ci; the tests run on the Node 22 it installs)"; exit 1; }
export NPM_CONFIG_CACHE="${NPM_CONFIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zoekt-pager/npm}"

stamp="$DIR/node_modules/.zoekt-pager-installed"
want="$(cat "$DIR/package.json" "$DIR/package-lock.json" | sha256sum | cut -d' ' -f1)"
node="$DIR/node_modules/.bin/node"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$node" ] && "$node" --version | grep -q '^v22\.'; then
  say "tests/ts packages already installed (Node $("$node" --version))"
  exit 0
fi

say "npm ci in tests/ts (Node 22 as an npm package, @modelcontextprotocol/sdk, /conformance, /inspector; cache $NPM_CONFIG_CACHE)"
started=$SECONDS
# --foreground-scripts: show the `node` package's own install (it fetches the Node binary).
(cd "$DIR" && npm ci --prefer-offline --no-audit --no-fund --foreground-scripts)
version="$("$node" --version)"
case "$version" in
  v22.*) ;;
  *) say "tests/ts/node_modules/.bin/node is $version, not Node 22"; exit 1 ;;
esac
echo "$want" >"$stamp"
say "installed in $((SECONDS - started))s: Node $version"
