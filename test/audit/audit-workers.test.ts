// The audit trail under WORKERS=2 on PostgreSQL (issue 39): initiations spread over both worker
// processes leave one record each, with its correlation id; the workers' sealers (each turn takes the
// sealer's lock) seal them all, and `psd2-gateway audit verify` run as an operator runs it finds the
// trail whole. Skipped without TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { TppClient } from '@psd2-gateway/client';
import { createFreshDatabase, type FreshDatabase } from '../helpers/fresh-database.ts';
import { TEST_DATABASE_URL } from '../helpers/gateway.ts';
import { domestic } from '../helpers/payments.ts';
import { fresh, type ServeProcess, spawnServe } from '../helpers/serve-process.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/v1/payments/${PRODUCT}`;
/** Initiations a batch, and batches at most, until both workers have taken some. */
const BATCH = 12;
const MAX_BATCHES = 10;
const TOLVAN = '191212121212';

describe('audit trail with WORKERS=2', {
  skip: TEST_DATABASE_URL === undefined ? 'TEST_DATABASE_URL is not set' : false,
}, () => {
  let database: FreshDatabase;
  let gateway: ServeProcess;

  before(async () => {
    database = await createFreshDatabase(TEST_DATABASE_URL!);
    gateway = spawnServe({ DATABASE_URL: database.url, WORKERS: '2', AUDIT_SEAL_INTERVAL_MS: '50' });
    await gateway.ready(2);
  });
  after(async () => {
    await gateway?.kill();
    await database?.drop();
  });

  test('each initiation recorded once, whichever worker took it; the sealed trail verifies', async () => {
    // Port 0: the cluster gives its workers the same port, which their listen lines name.
    const urls = new Set(
      gateway
        .lines()
        .filter((line) => line.phase === 'listen')
        .map((line) => line.url),
    );
    assert.equal(urls.size, 1, JSON.stringify([...urls]));
    const app = gateway.lines().find((line) => line.phase === 'sandbox app')!;
    const base = String([...urls][0]);
    const clientId = String(app.clientId);
    const token = await new TppClient(base, clientId, String(app.redirectUri)).clientCredentialsToken('PIS');
    const start = await database.query<{ seq: string }>(
      'SELECT COALESCE(max(seq), 0)::text AS seq FROM audit_events',
    );
    // Each on a connection of its own: the cluster hands connections to the free workers in turn. A
    // worker busy with its share may leave a whole batch to the other on a loaded machine, so batches
    // go on (bounded) until both have taken some.
    const servers = () =>
      new Set(
        gateway
          .lines()
          .filter((line) => (line.req as { path?: string } | undefined)?.path === PATH)
          .map((line) => line.pid),
      );
    const requestIds: string[] = [];
    const answers: Awaited<ReturnType<typeof fresh>>[] = [];
    for (let batch = 0; batch < MAX_BATCHES && (batch === 0 || servers().size < 2); batch++) {
      const ids = Array.from({ length: BATCH }, (_, index) => `workers-${batch}-${index}`);
      requestIds.push(...ids);
      answers.push(
        ...(await Promise.all(
          ids.map((requestId) =>
            fresh(
              base + PATH,
              'POST',
              {
                'x-gateway-client-id': clientId,
                'tpp-request-id': requestId,
                'tpp-transaction-id': 't',
                authorization: `Bearer ${token}`,
                country: 'SE',
              },
              domestic(),
            ),
          ),
        )),
      );
    }
    for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
    // The request log's lines come through the workers' pipes a little after the answers (bounded wait).
    for (let wait = 0; wait < 40 && servers().size < 2; wait++) await sleep(50);
    assert.equal(servers().size, 2, 'both workers took initiations');

    const records = await database.query(
      `SELECT event, outcome, resource, tpp_id, app_id, certificate, psu_id, address, correlation_id, detail
         FROM audit_events WHERE seq > $1::bigint ORDER BY correlation_id COLLATE "C"`,
      [start[0]!.seq],
    );
    assert.deepEqual(
      records,
      requestIds
        .map((requestId, index) => ({
          event: 'payment.initiated',
          outcome: 'ACTC',
          resource: (answers[index]!.body as { paymentId: string }).paymentId,
          tpp_id: null,
          app_id: clientId,
          certificate: null,
          psu_id: TOLVAN,
          address: '127.0.0.1',
          correlation_id: requestId,
          detail: { product: PRODUCT },
        }))
        .sort((a, b) => (a.correlation_id < b.correlation_id ? -1 : 1)),
    );

    // The workers' sealers take every record (bounded: 10 s of 50 ms turns).
    const unsealed = async () =>
      (
        await database.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM audit_events
            WHERE seq > (SELECT COALESCE(max(to_seq), 0) FROM audit_seals)`,
        )
      )[0]!.n;
    for (let turn = 0; turn < 200 && (await unsealed()) > 0; turn++) await sleep(50);
    assert.equal(await unsealed(), 0, 'the workers sealed every record');

    const [counts] = await database.query<{ records: number; seals: number }>(
      'SELECT (SELECT count(*)::int FROM audit_events) AS records, (SELECT count(*)::int FROM audit_seals) AS seals',
    );
    const verify = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/index.ts', 'audit', 'verify'],
      {
        cwd: new URL('../../', import.meta.url).pathname,
        env: { ...process.env, DATABASE_URL: database.url, MODE: 'sandbox', LOG_LEVEL: 'warn' },
        timeout: 30_000,
      },
    );
    assert.deepEqual(verify, {
      stdout: `audit trail whole: ${counts!.records} records in ${counts!.seals} seals\n`,
      stderr: '',
    });
  });
});
