// Reads on standbys (DATABASE_READ_URL) on servers of the test's own (a primary and two asynchronous
// standbys): account information comes from a standby within DB_READ_MAX_LAG_MS (proved by a standby
// whose replay is paused: it answers what the primary no longer holds), a standby further behind is
// skipped and the primary answers, the status right after an execution is the primary's, a killed
// standby costs no request its answer, and without DATABASE_READ_URL the primary serves as before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TppClient } from '@psd2-gateway/client';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/database/open.ts';
import type { Store } from '../../src/store/database.ts';
import { explainOpenFailure } from '../../src/store/open-failures.ts';
import { bankDate, type Gateway, setBalance, startGateway, type TestStore } from '../helpers/gateway.ts';
import { call, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';
import { clusterUnavailable, type PgCluster, startCluster } from '../helpers/pg-cluster.ts';
import { spawnServe } from '../helpers/serve-process.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const BALANCES = `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}/balances`;
const whole = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });

function balances(content: string) {
  const amount = { content, currency: 'SEK' };
  return {
    accountId: ACCOUNTS.tolvan.accountId,
    balances: [
      { amount, balanceType: 'booked' },
      { amount, balanceType: 'available' },
    ],
  };
}

/** Until every standby has replayed all the primary has written (30 s at most). */
async function caughtUp(cluster: PgCluster): Promise<void> {
  const [{ lsn }] = (await cluster.primary.query<{ lsn: string }>(
    'SELECT pg_current_wal_lsn()::text AS lsn',
  )) as [{ lsn: string }];
  for (let tries = 0; tries < 300; tries++) {
    const behind = await Promise.all(
      cluster.standbys
        .filter((standby) => standby.running())
        .map(async (standby) => {
          const [row] = await standby.query<{ behind: boolean }>(
            'SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind',
            [lsn],
          );
          return row?.behind !== false;
        }),
    );
    if (!behind.includes(true)) return;
    await sleep(100);
  }
  throw new Error('the standbys did not catch up within 30 s');
}

/** A store on the cluster's primary with its standbys for reads, as DATABASE_URL and DATABASE_READ_URL give it. */
async function clusterStore(cluster: PgCluster, readMaxLagMs: number | undefined): Promise<TestStore> {
  const databaseUrl = `postgres://postgres@${cluster.primary.hostPort}/${cluster.database}`;
  const store = await openStore({
    databaseUrl,
    ...(readMaxLagMs === undefined ? {} : { readUrl: cluster.readUrl, readMaxLagMs }),
  });
  return { ...store, schemaName: undefined };
}

/**
 * Reads `path` until a standby served one (the lag monitor's first samples take a tick or two), 10 s at
 * most; the answer of that read.
 */
async function servedByStandby(store: Store, client: TppClient, path: string, token: string) {
  for (let tries = 0; tries < 200; tries++) {
    const before = store.readCounts!().standby;
    const answer = await client.read(path, token);
    if (store.readCounts!().standby > before) return answer;
    await sleep(50);
  }
  throw new Error(`no standby served ${path} within 10 s`);
}

const unavailable = clusterUnavailable();
if (unavailable !== undefined) console.log(`# read standbys skipped: ${unavailable}`);

describe('reads on standbys', { skip: unavailable !== undefined }, () => {
  let cluster: PgCluster;
  /** DB_READ_MAX_LAG_MS=600000: the standbys serve whatever they hold (the proof that they serve). */
  let patient: TestStore;
  /** DB_READ_MAX_LAG_MS=300: a standby paused for longer is skipped. */
  let strict: TestStore;
  let first: Gateway;
  let second: Gateway;
  let tolvan: string;
  before(async () => {
    cluster = await startCluster({ standbys: 2, synchronous: false });
    patient = await clusterStore(cluster, 600_000);
    strict = await clusterStore(cluster, 300);
    first = await startGateway({ store: patient });
    second = await startGateway({ store: strict, config: { sandboxClientId: first.sandboxApp.clientId } });
    const consent = await first.client.createConsent(await first.client.clientCredentialsToken('AIS'));
    tolvan = (await first.client.authorizeScope(`AIS:${consent.body.consentId}`)).access_token;
  });
  after(async () => {
    await first?.close();
    await second?.close();
    await patient?.close();
    await strict?.close();
    await cluster?.stop();
  });

  test('without DATABASE_READ_URL every read is the primary', async () => {
    const plain = await clusterStore(cluster, undefined);
    try {
      assert.equal(plain.readDb, plain.db);
      assert.equal(plain.readCounts, undefined);
    } finally {
      await plain.close();
    }
  });

  test('a standby answers within the bound; one further behind is skipped; a status after an execution is the primary', async () => {
    const pis = await first.client.clientCredentialsToken();
    const initiated = await first.client.initiate(pis, {
      path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
      body: domestic(),
    });
    assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
    const { paymentId } = initiated.body;
    const psu = (await first.client.authorizeScope(`PIS:${paymentId}`)).access_token;
    await caughtUp(cluster);
    const today = bankDate();
    const transactions = `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}/transactions?dateFrom=${today}`;
    const before = await servedByStandby(patient, first.client, BALANCES, tolvan);
    assert.deepEqual(whole(before), { status: 200, body: balances('12500000.00') });
    const noLines = { status: 200, body: { accountId: ACCOUNTS.tolvan.accountId, transactions: [] } };
    assert.deepEqual(whole(await first.client.read(transactions, tolvan)), noLines);

    for (const standby of cluster.standbys) await standby.query('SELECT pg_wal_replay_pause()');
    try {
      const executed = await first.client.execute(PRODUCT, paymentId, psu);
      assert.equal(executed.status, 200, JSON.stringify(executed.body));
      assert.equal(executed.body.transactionStatus, 'ACCC');
      // The standbys hold the payment as authorized, not executed: the status is the primary's.
      const status = await first.client.status(PRODUCT, paymentId, pis, 'SE');
      assert.deepEqual(whole(status), { status: 200, body: { paymentId, transactionStatus: 'ACCC' } });

      // Within its bound a standby answers what it holds: the balance and the lines before the
      // execution, which the primary no longer has. That is the proof that the standby served.
      const standbyReads = patient.readCounts!().standby;
      assert.deepEqual(whole(await first.client.read(BALANCES, tolvan)), {
        status: 200,
        body: balances('12500000.00'),
      });
      assert.deepEqual(whole(await first.client.read(transactions, tolvan)), noLines);
      assert.ok(patient.readCounts!().standby > standbyReads, 'the standbys served the reads');

      // With a bound of 300 ms the paused standbys are skipped (at the latest a tick after 300 ms) and
      // the primary answers: the balance after the payment, and its line.
      let fresh = await second.client.read(BALANCES, tolvan);
      for (
        let tries = 0;
        tries < 100 && JSON.stringify(fresh.body) === JSON.stringify(before.body);
        tries++
      ) {
        await sleep(100);
        fresh = await second.client.read(BALANCES, tolvan);
      }
      assert.deepEqual(whole(fresh), { status: 200, body: balances('12499874.50') });
      const lines = await second.client.read<{ transactions: { amount: unknown; status: string }[] }>(
        transactions,
        tolvan,
      );
      assert.equal(lines.status, 200);
      assert.deepEqual(
        lines.body.transactions.map(({ amount, status }) => ({ amount, status })),
        [{ amount: { content: '125.50', currency: 'SEK' }, status: 'BOOKED' }],
      );

      // Funds confirmations likewise: Agda's SEK 1,000.00 on the primary, her balance before on the standbys.
      await setBalance(patient, ACCOUNTS.agda.accountId, 100_000);
      const confirm = (gateway: Gateway) =>
        call(gateway.app, 'POST', '/psd2/v1/funds-confirmations', {
          headers: gateway.client.tppHeaders(pis),
          json: {
            account: { iban: ACCOUNTS.agda.iban },
            instructedAmount: { currency: 'SEK', amount: '2000.00' },
          },
        });
      assert.deepEqual(statusAndBody(await confirm(first)), { status: 200, body: { fundsAvailable: true } });
      let refused = await confirm(second);
      for (
        let tries = 0;
        tries < 100 && (refused.body as { fundsAvailable?: boolean }).fundsAvailable !== false;
        tries++
      ) {
        await sleep(100);
        refused = await confirm(second);
      }
      assert.deepEqual(statusAndBody(refused), { status: 200, body: { fundsAvailable: false } });
    } finally {
      for (const standby of cluster.standbys) await standby.query('SELECT pg_wal_replay_resume()');
    }
    // Caught up again, the standbys serve the strict gateway too, and hold the payment.
    await caughtUp(cluster);
    const again = await servedByStandby(strict, second.client, BALANCES, tolvan);
    assert.deepEqual(whole(again), { status: 200, body: balances('12499874.50') });
    // A final status is the standby's to answer (a gateway whose cache has not seen the payment).
    const third = await startGateway({
      store: patient,
      config: { sandboxClientId: first.sandboxApp.clientId },
    });
    try {
      const standbyReads = patient.readCounts!().standby;
      const final = await third.client.status(PRODUCT, paymentId, pis, 'SE');
      assert.deepEqual(whole(final), { status: 200, body: { paymentId, transactionStatus: 'ACCC' } });
      assert.equal(patient.readCounts!().standby, standbyReads + 1);
    } finally {
      await third.close();
    }
  });

  test('as an operator runs it: the settings from the environment, a bad host list named at start', async () => {
    const databaseUrl = `postgres://postgres@${cluster.primary.hostPort}/${cluster.database}`;
    const serving = spawnServe({ DATABASE_URL: databaseUrl, DATABASE_READ_URL: cluster.readUrl });
    try {
      const [ready] = await serving.ready();
      const url = /ready at (\S+)/.exec(String(ready!.msg))![1]!;
      const metrics = await (await fetch(`${url}/metrics`)).text();
      assert.deepEqual(
        metrics.split('\n').filter((line) => line.startsWith('psd2_db_standby_reads_total{')).length,
        2,
        metrics,
      );
    } finally {
      await serving.kill();
    }
    const refused = spawnServe({
      DATABASE_URL: databaseUrl,
      DATABASE_READ_URL: `postgres://postgres:secret@${cluster.standbys[0]!.hostPort},:x/bank`,
    });
    // Checked with the settings (config.ts reads the host list with the store's parser): a bad setting.
    assert.equal(await refused.exited(), 2);
    assert.equal(
      refused.stderr().trim(),
      'psd2-gateway: bad setting DATABASE_READ_URL: host 2 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
    );
  });

  test('a killed standby is skipped: every read is answered, by the other standby or the primary', async () => {
    await caughtUp(cluster);
    await servedByStandby(patient, first.client, BALANCES, tolvan);
    await cluster.standbys[1]!.kill();
    const answers = [];
    for (let read = 0; read < 20; read++) answers.push(whole(await first.client.read(BALANCES, tolvan)));
    await cluster.standbys[0]!.kill();
    const primaryReads = patient.readCounts!().primary;
    for (let read = 0; read < 20; read++) answers.push(whole(await first.client.read(BALANCES, tolvan)));
    assert.ok(patient.readCounts!().primary > primaryReads, 'the primary served the reads of no standby');
    const counts = patient.readCounts!();
    const metrics = await call(first.app, 'GET', '/metrics');
    assert.deepEqual(
      String(metrics.body)
        .split('\n')
        .filter((line) => line.startsWith('psd2_db_standby_reads_total{')),
      [
        `psd2_db_standby_reads_total{server="standby"} ${counts.standby}`,
        `psd2_db_standby_reads_total{server="primary"} ${counts.primary}`,
      ],
    );
    const expected = { status: 200, body: balances('12499874.50') };
    assert.deepEqual(
      answers,
      Array.from({ length: 40 }, () => expected),
    );
  });
});

describe('DATABASE_READ_URL and DB_READ_MAX_LAG_MS', () => {
  const primary = { DATABASE_URL: 'postgres://gw@db1:5432/bank' };

  test('several hosts, a bound of its own, and the defaults', () => {
    const config = loadConfig(
      { ...primary, DATABASE_READ_URL: 'postgres://gw@r1:5432,r2:5433/bank', DB_READ_MAX_LAG_MS: '250' },
      false,
    );
    assert.deepEqual(
      { url: config.databaseReadUrl, lag: config.databaseReadMaxLagMs },
      { url: 'postgres://gw@r1:5432,r2:5433/bank', lag: 250 },
    );
    const unset = loadConfig(primary, false);
    assert.deepEqual(
      { url: unset.databaseReadUrl, lag: unset.databaseReadMaxLagMs },
      { url: undefined, lag: 1000 },
    );
  });

  test('refused: standbys without a primary, another scheme, a bound out of range', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env, false);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    assert.deepEqual(
      [
        refusal({ DATABASE_READ_URL: 'postgres://gw@r1/bank' }),
        refusal({ ...primary, DATABASE_READ_URL: 'mysql://r1/bank' }),
        refusal({ ...primary, DATABASE_READ_URL: 'postgres://r1/bank', DB_READ_MAX_LAG_MS: '50' }),
        refusal({ ...primary, DATABASE_READ_URL: 'postgres://r1/bank', DB_READ_MAX_LAG_MS: 'soon' }),
      ],
      [
        'DATABASE_READ_URL: standbys serve reads beside a PostgreSQL primary: set DATABASE_URL too, or unset DATABASE_READ_URL',
        'DATABASE_READ_URL: must use postgres: or postgresql:, got "mysql:"',
        'DB_READ_MAX_LAG_MS: must be between 100 and 600000, got 50',
        'DB_READ_MAX_LAG_MS: must be a whole number, got "soon"',
      ],
    );
  });

  test('a host list that does not parse stops the start naming DATABASE_READ_URL, without the password', async () => {
    const error = await openStore({
      databaseUrl: 'postgres://gw@127.0.0.1:1/bank',
      readUrl: 'postgres://gw:secret@r1:5432,r2:port/bank',
    }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    assert.deepEqual(
      explainOpenFailure(error, { databaseUrl: 'postgres://gw@127.0.0.1:1/bank', connectMs: 5000 }),
      {
        setting: 'DATABASE_READ_URL',
        text: 'host 2 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
      },
    );
  });
});
