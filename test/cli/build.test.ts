// The built gateway (npm install builds it: dist/): the CLI answers --help without loading the server,
// and a stack trace points at the TypeScript sources through the source maps.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';

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
  const answer = await run(['migrate'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
  assert.equal(answer.code, 1);
  assert.match(answer.stderr, /ECONNREFUSED/);
  assert.match(answer.stderr, /src\/store\/database\.ts:\d+:\d+/);
});
