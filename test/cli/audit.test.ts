// psd2-gateway audit verify and export (issue 39) on the database the settings name (here PGlite on
// disk, DATA_DIR): exit 0 on a whole trail, 1 naming the record an UPDATE changed; JSON lines out.
// Runs the built CLI when dist/ is built, else the sources through tsx, as test/cli/tpp.test.ts does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { recordEvents } from '../../src/store/audit/record.ts';
import { openStore } from '../../src/store/database/open.ts';

const BUILT = existsSync(new URL('../../dist/cli.js', import.meta.url));
const ENTRY = BUILT ? ['bin/psd2-gateway.mjs'] : ['--import', 'tsx', 'src/cli/index.ts'];
const KEY = 'a'.repeat(64);

let dir: string;

function cli(args: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATA_DIR: join(dir, 'data'),
    AUDIT_KEY: KEY,
  };
  delete env.DATABASE_URL;
  return promisify(execFile)(process.execPath, [...ENTRY, 'audit', ...args], { env, timeout: 60_000 }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => ({
      code: failed.code,
      stdout: failed.stdout,
      stderr: failed.stderr,
    }),
  );
}

async function withStore<T>(use: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir: join(dir, 'data') });
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psd2-cli-audit-'));
  await withStore((store) =>
    recordEvents(store.db, [
      {
        event: 'tpp.enrolled',
        outcome: 'ok',
        resource: 'SE-FINA-1',
        tppId: 'SE-FINA-1',
        correlationId: 'r-1',
      },
      {
        event: 'consent.created',
        outcome: 'received',
        resource: 'c-1',
        appId: 'app-1',
        psuId: '191212121212',
      },
      {
        event: 'consent.revoked',
        outcome: 'revokedByPsu',
        resource: 'c-1',
        appId: 'app-1',
        psuId: '191212121212',
      },
    ]),
  );
});
after(() => rm(dir, { recursive: true, force: true }));

test('verify: 0 on a whole trail, 1 naming the first record changed', async () => {
  const whole = await cli(['verify']);
  assert.deepEqual(whole, { code: 0, stdout: 'audit trail whole: 3 records in 1 seals\n', stderr: '' });
  await withStore((store) =>
    store.db.execute(sql`UPDATE audit_events SET psu_id = '198112289874' WHERE seq = 2`),
  );
  const changed = await cli(['verify']);
  assert.deepEqual(changed, { code: 1, stdout: 'audit trail broken at record 2: changed\n', stderr: '' });
  await withStore((store) =>
    store.db.execute(sql`UPDATE audit_events SET psu_id = '191212121212' WHERE seq = 2`),
  );
  assert.equal((await cli(['verify'])).code, 0);
});

test('export: JSON lines of the period, filtered by PSU and resource', async () => {
  const day = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const all = await cli(['export', '--from', day, '--to', tomorrow]);
  assert.equal(all.code, 0, all.stderr);
  const lines = all.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(
    lines.map((line) => [line.seq, line.event, line.resource]),
    [
      ['1', 'tpp.enrolled', 'SE-FINA-1'],
      ['2', 'consent.created', 'c-1'],
      ['3', 'consent.revoked', 'c-1'],
    ],
  );
  assert.deepEqual(Object.keys(lines[0]!), [
    'seq',
    'at',
    'event',
    'outcome',
    'resource',
    'tppId',
    'appId',
    'certificate',
    'psuId',
    'address',
    'correlationId',
    'detail',
  ]);
  const byPsu = await cli([
    'export',
    '--from',
    day,
    '--to',
    tomorrow,
    '--psu',
    '191212121212',
    '--resource',
    'c-1',
  ]);
  assert.equal(byPsu.stdout.trim().split('\n').length, 2);
  const byTpp = await cli(['export', '--from', day, '--to', tomorrow, '--tpp', 'SE-FINA-1']);
  assert.equal(byTpp.stdout.trim().split('\n').length, 1);
  const bad = await cli(['export', '--from', 'yesterday', '--to', tomorrow]);
  assert.equal(bad.code, 2);
});
