// What a host built on the TypeScript MCP SDK (Claude Code, VS Code) sees: the real
// `zoekt-pager serve` over stdio and as an HTTP sidecar, against the live fixture Zoekt,
// driven by the SDK's own Client. Every paged tool is walked to its last page; every result
// must pass the SDK's outputSchema check (done inside callTool) and the same check made here
// with the SDK's validator class; and the whole run must log no `unknown format` warning.
//
// Only `structuredContent.next_cursor` is read from a page, and whether a walk met the key
// it is there for: the rest of the page shape is not this test's business.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

import { BIN, serverEnv, startSidecar, zoektUrl } from './support.mjs';

// Everything written to console.warn / console.error and every process warning, for the
// whole run. The SDK's Ajv reports schema trouble (`unknown format "uint64" ignored in
// schema ...`) through console.warn.
const logged = [];
let echo = true; // also print what is captured (off while the capture checks itself)
for (const level of ['warn', 'error']) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    logged.push(`console.${level}: ${args.map(String).join(' ')}`);
    if (echo) original(...args);
  };
}
process.on('warning', (w) => logged.push(`process warning: ${w.name}: ${w.message}`));

/** The paged tools, each with a query that takes several pages at its limit; a fourth entry
 * names a key that some page of the walk must carry, so that the schema checks meet it. */
const WALKS = [
  ['search_symbols', { query: 'pagerItem' }, 7],
  ['search_files', { query: '\\.go$' }, 7],
  ['find_references', { symbol: 'get' }, 7],
  ['search', { query: 'pagerItem\\d+' }, 7],
  // Byte-identical files in beta-go and twin-go: a line that recurs is said once.
  ['search', { query: 'tiebreakProbe' }, 5, 'text_by_number'],
  ['files_with_matches', { query: 'pagerItem' }, 7],
  ['list_repos', {}, 2],
  // Every kind of entry: directories, files, and a `more` entry counting the rest.
  ['list_tree', { repo: 'beta-go', depth: 3, per_directory: 4 }, 3],
  // 46 symbols as a tree (fixtures/README.md, section 2): its kinds recur, said once a page.
  ['outline_file', { repo: 'alpha-rs', path: 'src/registry.rs' }, 7, 'kind_by_number'],
  ['outline_file', { repo: 'alpha-rs', path: 'src/registry.rs', kinds: ['method'], source: true }, 10],
];
const ANSWERS = [
  ['read_file', { repo: 'alpha-rs', path: 'src/cache.rs' }],
  ['health', {}],
];
const MAX_PAGES = 1000;

/** Every item of a structured page, each as one string that names it: its group's cells and
 * its own, a recurring value said once (`<column>_by_number`) given back in its cell, and the
 * part it is in (a sectioned page holds its parts, each with its own `fields`). Rows are
 * read by `fields`: a nested list there is the columns of the rows inside each group. */
function pageItems(sc) {
  const parts = sc.fields ? [['', sc]] : Object.entries(sc).filter(([, v]) => v?.fields);
  const out = [];
  for (const [name, part] of parts) {
    const said = Object.fromEntries(Object.entries(part).filter(([k]) => k.endsWith('_by_number'))
      .map(([k, v]) => [k.slice(0, -'_by_number'.length), v]));
    const cell = (column, c) => (said[column] && Number.isInteger(c) ? said[column][c] : c);
    const rows = (fields, list, group) => {
      const inner = fields.findIndex(Array.isArray);
      for (const r of list) {
        if (inner < 0) out.push(JSON.stringify([name, ...group, ...r.map((c, i) => cell(fields[i], c))]));
        else rows(fields[inner], r[inner], [...group, ...r.slice(0, inner)]);
      }
    };
    rows(part.fields, part.rows ?? part.files ?? part.repos ?? [], []);
  }
  return out;
}

/** The SDK's own Ajv validator, counting how often the Client used it on a result. */
class CountingValidator {
  constructor() {
    this.inner = new AjvJsonSchemaValidator();
    this.used = 0;
  }
  getValidator(schema) {
    const check = this.inner.getValidator(schema);
    return (input) => {
      this.used += 1;
      return check(input);
    };
  }
}

const transports = {
  stdio: async (zoekt) => {
    const transport = new StdioClientTransport({
      command: BIN,
      args: ['serve'],
      env: serverEnv({ ZOEKT_URL: zoekt }),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    return { transport, stderr: () => stderr, stop: async () => {} };
  },
  http: async (zoekt) => {
    const sidecar = await startSidecar(zoekt);
    return {
      transport: new StreamableHTTPClientTransport(new URL(sidecar.url)),
      stderr: sidecar.stderr,
      stop: sidecar.stop,
    };
  },
};

for (const [name, open] of Object.entries(transports)) {
  describe(`TypeScript SDK client over ${name}`, () => {
    let server;
    let client;
    let counting;
    let tools;
    const explicit = new AjvJsonSchemaValidator();
    const checkers = new Map();

    before(async () => {
      server = await open(zoektUrl());
      counting = new CountingValidator();
      client = new Client({ name: 'zoekt-pager-ts-test', version: '0.0.0' }, { jsonSchemaValidator: counting });
      await client.connect(server.transport);
    });

    after(async () => {
      await client?.close();
      await server?.stop();
    });

    /** callTool, checked: not an error, structured content present, validated by the
     * Client (its validator ran once more) and by the SDK's validator here. */
    async function call(tool, args) {
      const used = counting.used;
      const result = await client.callTool({ name: tool, arguments: args });
      const where = `${tool} ${JSON.stringify(args)}`;
      assert.notEqual(result.isError, true, `${where}: ${JSON.stringify(result.content)}\n${server.stderr()}`);
      assert.equal(typeof result.structuredContent, 'object', `${where}: no structuredContent`);
      assert.equal(counting.used, used + 1, `${where}: the Client did not validate structuredContent`);
      const verdict = checkers.get(tool)(result.structuredContent);
      assert.ok(verdict.valid, `${where}: structuredContent does not match the outputSchema: ${verdict.errorMessage}`);
      return result;
    }

    test('tools/list: every tool has an output schema, every paged tool is walked below', async () => {
      ({ tools } = await client.listTools());
      const names = tools.map((t) => t.name);
      for (const [tool] of [...WALKS, ...ANSWERS]) assert.ok(names.includes(tool), `${tool} missing from ${names}`);
      for (const t of tools) {
        assert.equal(t.outputSchema?.type, 'object', `${t.name}: no output schema`);
        checkers.set(t.name, explicit.getValidator(t.outputSchema));
        if (t.inputSchema.properties?.cursor) {
          assert.ok(
            WALKS.some(([w]) => w === t.name),
            `${t.name} is paged (takes a cursor) but this test does not walk it`,
          );
        }
      }
    });

    for (const [tool, args, limit, met] of WALKS) {
      test(`${tool} ${JSON.stringify(args)} walked to its last page at limit ${limit}`, async (t) => {
        let cursor;
        let pages = 0;
        let carried = false;
        const items = [];
        let result;
        do {
          result = await call(tool, { ...args, limit, ...(cursor ? { cursor } : {}) });
          pages += 1;
          items.push(...pageItems(result.structuredContent));
          carried ||= met !== undefined && met in result.structuredContent;
          cursor = result.structuredContent.next_cursor;
          assert.ok(cursor === undefined || (typeof cursor === 'string' && cursor !== ''), `${tool}: cursor ${cursor}`);
          assert.ok(pages < MAX_PAGES, `${tool}: more than ${MAX_PAGES} pages`);
        } while (cursor !== undefined);
        assert.ok(pages >= 2, `${tool}: only ${pages} page(s): the walk shows no paging`);
        if (met !== undefined) assert.ok(carried, `${tool}: no page carried \`${met}\``);
        // The items read back are the walk's, not an empty reading of a page shape this
        // reader does not know: as many as an exact total says.
        assert.ok(items.length > limit, `${tool}: ${items.length} items read back`);
        const total = result.structuredContent.total;
        if (total !== undefined) assert.equal(items.length, total, `${tool}: items against total`);
        const duplicates = items.length - new Set(items).size;
        assert.equal(duplicates, 0, `${tool}: ${duplicates} item(s) came twice`);
        t.diagnostic(`${pages} pages, ${items.length} items, 0 duplicates`);
      });
    }

    for (const [tool, args] of ANSWERS) {
      test(`${tool} once`, async () => {
        await call(tool, args);
      });
    }

    test('no schema-format warnings were logged', () => {
      const formats = logged.filter((l) => /unknown format/i.test(l));
      assert.deepEqual(formats, [], 'the SDK warned about schema formats');
    });
  });
}

// The capture above is what makes the warning check mean something: show it catches what
// the SDK's validator prints for a schemars format, then forget that line.
test('the warning capture sees what the SDK validator prints for an unknown format', () => {
  const start = logged.length;
  echo = false;
  try {
    new AjvJsonSchemaValidator().getValidator({ type: 'integer', format: 'uint32' });
  } finally {
    echo = true;
  }
  const seen = logged.splice(start);
  assert.ok(
    seen.some((l) => l.includes('unknown format "uint32"')),
    `the SDK's validator printed ${JSON.stringify(seen)}: the capture no longer sees its warnings`,
  );
});

test('no warnings at all were logged during the run', () => {
  assert.deepEqual(logged, []);
});
