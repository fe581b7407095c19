// Shared by the Node tests: where the binary and the live Zoekt are, and a real
// `zoekt-pager serve --http` child process.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The zoekt-pager binary: ZOEKT_PAGER_BIN (scripts/test.sh sets it), else the debug build
 * in CARGO_TARGET_DIR or target/. */
export const BIN = resolve(
  process.env.ZOEKT_PAGER_BIN ||
    resolve(process.env.CARGO_TARGET_DIR || resolve(here, '../../target'), 'debug/zoekt-pager'),
);

/** The live fixture Zoekt. Missing is a failure, never a skip. */
export function zoektUrl() {
  const url = process.env.ZOEKT_PAGER_LIVE_URL;
  if (!url) {
    throw new Error(
      'ZOEKT_PAGER_LIVE_URL is not set: run these tests through scripts/test.sh, which starts ' +
        'a real zoekt-webserver on fixtures/corpus (or `scripts/test.sh --run npm test --prefix tests/ts`)',
    );
  }
  if (!existsSync(BIN)) {
    throw new Error(`no zoekt-pager binary at ${BIN}: build it (cargo build) or set ZOEKT_PAGER_BIN`);
  }
  return url;
}

/** The environment a server child gets: ours without any ZOEKT_PAGER_* setting (so it runs
 * with its defaults, like the Rust tests' servers), plus `extra`. */
export function serverEnv(extra) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('ZOEKT_PAGER_')),
  );
  return { ...env, ZOEKT_PAGER_LOG: 'warn', ...extra };
}

/** Starts `zoekt-pager serve --http 127.0.0.1:0` against `zoekt` and waits for the address it
 * prints. Returns `{url, stop, stderr}`; `url` ends in /mcp. */
export async function startSidecar(zoekt) {
  const child = spawn(BIN, ['serve', '--http', '127.0.0.1:0'], {
    env: serverEnv({ ZOEKT_URL: zoekt }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  const lines = createInterface({ input: child.stdout });
  const first = new Promise((res) => lines.once('line', res));
  const timeout = new Promise((_, rej) =>
    setTimeout(() => rej(new Error('the sidecar printed no address within 20 s')), 20_000).unref(),
  );
  const line = await Promise.race([
    first,
    timeout,
    exited.then(({ code, signal }) => {
      throw new Error(`the sidecar exited (${code ?? signal}) before serving: ${stderr}`);
    }),
  ]);
  // "zoekt-pager: serving MCP at http://127.0.0.1:PORT/mcp"
  const url = line.split(' ').pop();
  if (!/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(url)) {
    child.kill('SIGKILL');
    throw new Error(`unexpected first line from the sidecar: ${JSON.stringify(line)}`);
  }
  return {
    url,
    stderr: () => stderr,
    async stop() {
      lines.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
