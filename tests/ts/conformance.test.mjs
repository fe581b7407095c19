// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
// package.json) against the real sidecar (`zoekt-pager serve --http`) on the live fixture
// Zoekt. Runs the server scenarios that apply to a read-only tools + resources server and
// fails on any check that is not a success.
//
// Most of the suite's server scenarios test the reference "everything" server: they call
// tools, read URIs and get prompts by fixed names (`test_simple_text`, `test://static-text`,
// ...) that only that server has, or need capabilities we do not offer. Each is listed below
// with why it is left out; a scenario the pinned version lists that is in neither list fails
// the test, so a version bump makes someone decide about it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';

import { startSidecar, zoektUrl } from './support.mjs';

const require = createRequire(import.meta.url);
const CLI = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');

/** Scenarios run, each must give only successful checks (and at least one). */
const APPLY = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'];

const LEFT_OUT = {
  'logging-set-level': 'no logging capability (logs go to stderr)',
  'completion-complete': 'no completions capability',
  'tools-call-simple-text': "calls the everything server's test_simple_text tool",
  'tools-call-image': 'calls a fixture tool returning an image',
  'tools-call-audio': 'calls a fixture tool returning audio',
  'tools-call-embedded-resource': 'calls a fixture tool returning an embedded resource',
  'tools-call-mixed-content': 'calls a fixture tool returning mixed content',
  'tools-call-with-logging': 'calls a fixture tool that sends log notifications (no logging capability)',
  'tools-call-error': 'calls a fixture tool that fails (our tool errors are tested in tests/mcp_*.rs)',
  'tools-call-with-progress': 'calls a fixture tool that sends progress',
  'tools-call-sampling': 'calls a fixture tool that asks the client to sample',
  'tools-call-elicitation': 'calls a fixture tool that elicits input',
  'json-schema-2020-12': 'looks for a fixture tool json_schema_2020_12_tool',
  'elicitation-sep1034-defaults': 'calls a fixture elicitation tool',
  'elicitation-sep1330-enums': 'calls a fixture elicitation tool',
  'server-sse-polling': 'calls a fixture tool test_reconnection over SSE with sessions; /mcp is stateless plain JSON',
  'server-sse-multiple-streams':
    'needs a session id and SSE streams; on a stateless JSON server it only warns and checks nothing',
  'resources-read-text': 'reads the fixture URI test://static-text (ours are zoekt://, read in tests/live/mcp_http.rs)',
  'resources-read-binary': 'reads the fixture URI test://static-binary',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe': 'no resource subscriptions (the index changes outside the server)',
  'resources-unsubscribe': 'no resource subscriptions',
  'prompts-list': 'no prompts capability',
  'prompts-get-simple': 'no prompts capability',
  'prompts-get-with-args': 'no prompts capability',
  'prompts-get-embedded-resource': 'no prompts capability',
  'prompts-get-with-image': 'no prompts capability',
};

function conformance(args) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
  if (run.error) throw run.error;
  return run;
}

let sidecar;
let out;

before(async () => {
  sidecar = await startSidecar(zoektUrl());
  out = mkdtempSync(join(tmpdir(), 'zoekt-pager-conformance-'));
});

after(async () => {
  await sidecar?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

test('every server scenario of the pinned suite is either run or left out with a reason', () => {
  const listed = conformance(['list', '--server']);
  assert.equal(listed.status, 0, listed.stderr);
  const names = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
  assert.ok(names.length > 10, `could not read the scenario list:\n${listed.stdout}`);
  const undecided = names.filter((n) => !APPLY.includes(n) && !(n in LEFT_OUT));
  assert.deepEqual(undecided, [], 'new server scenarios: run them or say why not');
  const gone = [...APPLY, ...Object.keys(LEFT_OUT)].filter((n) => !names.includes(n));
  assert.deepEqual(gone, [], 'scenarios this version no longer has');
});

for (const scenario of APPLY) {
  test(`conformance scenario ${scenario}`, (t) => {
    const dir = join(out, scenario);
    const run = conformance(['server', '--url', sidecar.url, '--scenario', scenario, '-o', dir]);
    const results = readdirSync(dir).map((d) => join(dir, d, 'checks.json'));
    assert.equal(results.length, 1, `no results for ${scenario}:\n${run.stdout}\n${run.stderr}`);
    const checks = JSON.parse(readFileSync(results[0], 'utf8'));
    const bad = checks.filter((c) => !['SUCCESS', 'INFO'].includes(c.status));
    assert.deepEqual(
      bad.map((c) => `${c.id}: ${c.status}: ${c.errorMessage ?? JSON.stringify(c.details)}`),
      [],
      `${scenario} failed; sidecar log:\n${sidecar.stderr()}`,
    );
    const passed = checks.filter((c) => c.status === 'SUCCESS').map((c) => c.id);
    assert.ok(passed.length > 0, `${scenario} made no check`);
    assert.equal(run.status, 0, `the suite exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
    t.diagnostic(`passed: ${passed.join(', ')}`);
  });
}
