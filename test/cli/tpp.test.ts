// psd2-gateway tpp remove-certificate: the bank takes a certificate out of its TPP's set, in the database
// the settings name (here PGlite on disk, DATA_DIR). Runs the built CLI when dist/ is built, else the
// sources through tsx, as test/cli/cli.test.ts does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { createCa, issueQwac } from '../../src/certificates/issue.ts';
import { openStore } from '../../src/store/database/open.ts';
import { addCertificate, enrollTpp, findCertificate } from '../../src/store/tpps-repository.ts';
import { queryRows } from '../helpers/gateway.ts';

const BUILT = existsSync(new URL('../../dist/cli.js', import.meta.url));
const ENTRY = BUILT ? ['bin/psd2-gateway.mjs'] : ['--import', 'tsx', 'src/cli/index.ts'];

let dir: string;
let pem: string;
let thumbprint: string;

function cli(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: join(dir, 'data') };
  delete env.DATABASE_URL;
  return promisify(execFile)(process.execPath, [...ENTRY, 'tpp', ...args], { env, timeout: 60_000 }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
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
  dir = await mkdtemp(join(tmpdir(), 'psd2-cli-tpp-'));
  const issued = await issueQwac(await createCa(), {
    organizationIdentifier: 'PSDSE-FINA-44059',
    organizationName: 'Budget Buddy AB',
    roles: ['PSP_PI'],
  });
  pem = join(dir, 'qwac.pem');
  await writeFile(pem, issued.certificatePem);
  thumbprint = createHash('sha256').update(new X509Certificate(issued.certificatePem).raw).digest('hex');
  await withStore(async (store) => {
    const now = new Date();
    await enrollTpp(store.db, {
      tppId: 'SE-FINA-44059',
      organizationIdentifier: 'PSDSE-FINA-44059',
      name: 'Budget Buddy AB',
      createdAt: now,
    });
    await addCertificate(store.db, {
      thumbprint,
      tppId: 'SE-FINA-44059',
      scopes: 'PIS',
      notAfter: new Date(now.getTime() + 86_400_000),
      addedAt: now,
    });
  });
});
after(() => rm(dir, { recursive: true, force: true }));

test('remove-certificate takes the certificate out of its TPP set, once; adding it again is refused', async () => {
  assert.deepEqual(await cli(['remove-certificate', '--certificate', pem]), {
    code: 0,
    stdout: `removed the certificate ${thumbprint} of SE-FINA-44059\n`,
    stderr: '',
  });
  const again = await cli(['remove-certificate', '--thumbprint', thumbprint.toUpperCase()]);
  assert.deepEqual(
    [again.code, again.stdout, again.stderr],
    [1, '', `psd2-gateway tpp: no TPP holds the certificate ${thumbprint}\n`],
  );
  await withStore(async (store) => {
    // Recorded with the removal, once (the second run changed nothing): the operator as actor.
    const records = await queryRows<Record<string, unknown>>(
      store,
      sql`SELECT event, outcome, resource, tpp_id AS "tppId", app_id AS "appId", certificate, psu_id AS "psuId",
            address, correlation_id AS "correlationId", detail
          FROM audit_events WHERE event LIKE 'certificate.%' ORDER BY seq`,
    );
    assert.deepEqual(records, [
      {
        event: 'certificate.removed',
        outcome: 'ok',
        resource: thumbprint,
        tppId: 'SE-FINA-44059',
        appId: null,
        certificate: null,
        psuId: null,
        address: null,
        correlationId: records[0]?.correlationId,
        detail: { by: 'operator', user: userInfo().username },
      },
    ]);
    assert.match(String(records[0]?.correlationId), /^[0-9a-f-]{36}$/);
    assert.equal(await findCertificate(store.db, thumbprint), undefined);
    const readded = await addCertificate(store.db, {
      thumbprint,
      tppId: 'SE-FINA-44059',
      scopes: 'PIS',
      notAfter: new Date(Date.now() + 86_400_000),
      addedAt: new Date(),
    });
    assert.equal(readded, false);
  });
});

test('usage errors: one line, exit code 2, nothing touched', async () => {
  const cases: [string[], string][] = [
    [[], 'unknown action (none)'],
    [['forget'], 'unknown action forget'],
    [['remove-certificate'], 'give either --certificate or --thumbprint'],
    [['remove-certificate', '--thumbprint', 'abc'], '--thumbprint must be 64 hex digits (SHA-256)'],
    [
      ['remove-certificate', '--certificate', join(dir, 'none.pem')],
      '--certificate must name a PEM certificate file',
    ],
  ];
  for (const [args, text] of cases) {
    const answer = await cli(args);
    assert.deepEqual(
      [answer.code, answer.stdout, answer.stderr],
      [2, '', `psd2-gateway tpp: ${text} (psd2-gateway tpp --help)\n`],
      args.join(' '),
    );
  }
});
