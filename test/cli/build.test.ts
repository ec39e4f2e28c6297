// The built gateway (npm install builds it: dist/): the CLI answers --help without loading the server,
// a stack trace points at the TypeScript sources through the source maps, and the sandbox loads none
// of the libraries that only a setting of its own needs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { spawnServe } from '../helpers/serve-process.ts';

const BUILT = existsSync(new URL('../../dist/cli.js', import.meta.url));
if (!BUILT) console.log('# build tests skipped: dist/ is not built (npm run build)');
const run = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, ['bin/psd2-gateway.mjs', ...args], {
    env: { ...process.env, ...env },
  }).then(
    (done) => ({ code: 0, ...done }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );

test('--help answers from the bundle, naming every command', { skip: !BUILT }, async () => {
  const answer = await run(['--help']);
  assert.equal(answer.code, 0);
  for (const command of ['serve', 'migrate', 'snapshot', 'cert', 'help'])
    assert.match(answer.stdout, new RegExp(`  ${command} `));
});

test('a stack trace points at the TypeScript sources', { skip: !BUILT }, async () => {
  // A failure no setting explains keeps its stack (a bug to report): a server that answers PostgreSQL's
  // startup with an internal error (SQLSTATE XX000).
  const field = (key: string, value: string) => Buffer.from(`${key}${value}\0`);
  const payload = Buffer.concat([
    field('S', 'FATAL'),
    field('C', 'XX000'),
    field('M', 'internal error'),
    Buffer.from([0]),
  ]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(payload.length + 4);
  const server = createServer((socket) => {
    socket.once('data', () => socket.end(Buffer.concat([Buffer.from('E'), length, payload])));
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as { port: number };
    const answer = await run(['migrate'], { DATABASE_URL: `postgres://nobody@127.0.0.1:${port}/none` });
    assert.equal(answer.code, 1);
    assert.match(answer.stderr, /internal error/);
    assert.match(answer.stderr, /src\/store\/database\/postgres\.ts:\d+:\d+/);
  } finally {
    server.close();
  }
});

test('a database that does not answer: one line naming DATABASE_URL, no stack', {
  skip: !BUILT,
}, async () => {
  const answer = await run(['migrate'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
  assert.equal(answer.code, 1);
  assert.equal(
    answer.stderr,
    'psd2-gateway: cannot start: DATABASE_URL: nothing accepts connections at 127.0.0.1:1 (connection refused); start PostgreSQL there or correct the host and port\n',
  );
});

test("the sandbox loads neither pg nor the rates' XML parser (each only for its setting)", {
  skip: !BUILT,
}, async () => {
  // Every ES module the process loads is told on stderr by a loader hook (module.register).
  const dir = mkdtempSync(join(tmpdir(), 'psd2-loads-'));
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    [
      "import { writeSync } from 'node:fs';",
      'export async function load(url, context, next) {',
      "  writeSync(2, 'loaded ' + url + '\\n');",
      '  return next(url, context);',
      '}',
    ].join('\n'),
  );
  const registration = join(dir, 'register.mjs');
  writeFileSync(
    registration,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const gateway = spawnServe(
    { DATABASE_URL: '' },
    ['serve'],
    ['--import', registration, 'bin/psd2-gateway.mjs'],
  );
  try {
    await gateway.ready();
    const loaded = [...gateway.stderr().matchAll(/^loaded (\S+)$/gm)].map((match) => match[1]!);
    assert.ok(
      loaded.some((url) => url.includes('/@electric-sql/pglite/')),
      `the hook saw PGlite load: ${loaded.length} modules listed`,
    );
    assert.deepEqual(
      loaded.filter((url) => /\/node_modules\/pg(-[a-z]+)?\//.test(url)),
      [],
    );
    const files = loaded.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
    assert.deepEqual(
      files.filter((file) => readFileSync(file, 'utf8').includes('XMLParser')),
      [],
    );
  } finally {
    await gateway.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
