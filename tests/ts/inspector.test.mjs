// The MCP Inspector's CLI (@modelcontextprotocol/inspector, pinned in package.json) lists the
// tools and calls every tool of the real binary over stdio, against the live fixture Zoekt, as
// an operator trying the server would. Its validator used to print `unknown format "uint32"
// ignored in schema` for every schemars format in an outputSchema: the whole run must print
// no schema warning, and every paged tool's result must carry structuredContent.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

import { BIN, serverEnv, zoektUrl } from './support.mjs';

const require = createRequire(import.meta.url);
// The package's `mcp-inspector` bin, run by this Node (`--cli` picks the command-line client).
const cli = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'clients', 'launcher', 'build', 'index.js');

const CALLS = [
  ['search_symbols', ['query=pagerItem', 'limit=3']],
  ['search_files', ['query=\\.go$', 'limit=3']],
  ['find_references', ['symbol=get', 'limit=3']],
  ['search', ['query=pagerItem', 'limit=3']],
  ['files_with_matches', ['query=pagerItem', 'limit=3']],
  ['list_repos', ['limit=2']],
  ['list_tree', ['repo=beta-go', 'limit=3']],
  ['outline_file', ['repo=alpha-rs', 'path=src/registry.rs', 'limit=3']],
  ['read_file', ['repo=alpha-rs', 'path=src/cache.rs']],
  ['health', []],
];
const SCHEMA_WARNING = /unknown format|ignored in schema|strict mode|unknown keyword/i;

/** Runs the Inspector CLI against the binary over stdio; returns {status, stdout, stderr}. */
function inspector(zoekt, method, extra = []) {
  // The Inspector starts the server with an environment of its own: a coverage run's profile
  // path is passed on, or the server would write its profile into this directory.
  const profile = process.env.LLVM_PROFILE_FILE ? ['-e', `LLVM_PROFILE_FILE=${process.env.LLVM_PROFILE_FILE}`] : [];
  const args = [cli, '--cli', BIN, 'serve', '-e', `ZOEKT_URL=${zoekt}`, '-e', 'ZOEKT_PAGER_LOG=warn', ...profile, '--method', method, ...extra];
  const r = spawnSync(process.execPath, args, { env: serverEnv({}), encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout ?? '', stderr: `${r.stderr ?? ''}${r.error ?? ''}` };
}

test('the Inspector CLI lists the tools with no schema warning', () => {
  const zoekt = zoektUrl();
  const r = inspector(zoekt, 'tools/list');
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, SCHEMA_WARNING);
  const names = JSON.parse(r.stdout).tools.map((t) => t.name);
  for (const [tool] of CALLS) assert.ok(names.includes(tool), `${tool} missing from ${names}`);
});

for (const [tool, args] of CALLS) {
  test(`the Inspector CLI calls ${tool} with no schema warning`, () => {
    const zoekt = zoektUrl();
    const r = inspector(zoekt, 'tools/call', ['--tool-name', tool, ...args.flatMap((a) => ['--tool-arg', a])]);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, SCHEMA_WARNING);
    const result = JSON.parse(r.stdout);
    assert.notEqual(result.isError, true, r.stdout);
    assert.equal(typeof result.structuredContent, 'object', `${tool}: no structuredContent`);
  });
}
