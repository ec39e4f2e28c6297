// The process outlives its database (issue 42): the gateway as a process under a load of complete
// flows (initiation, authorization, execution, consents) while its PostgreSQL connections are reset
// (RST, through a proxy that drops them, again and again), and while PostgreSQL is killed with kill -9
// and started again. The process never exits; every request is answered within the bound the database
// timeouts set, the step's success or 503 in the route's documented shape with Retry-After, never 500;
// the gateway serves again by itself; everything it acknowledged is in the database.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { STATE_MAX_AGE_MS } from '../../src/services/shared/system-health.ts';
import { type DatabaseProxy, startDatabaseProxy } from '../helpers/db-proxy.ts';
import { createFreshDatabase, type FreshDatabase } from '../helpers/fresh-database.ts';
import { clusterUnavailable, type PgCluster, startCluster } from '../helpers/pg-cluster.ts';
import { type Call, type Flow, paymentRecords, startFlowLoad } from './answered-load.ts';
import {
  ANSWER_BOUND_MS,
  assertLedgerSound,
  FAST_DATABASE_SETTINGS,
  needsPostgres,
  RECOVERY_BOUND_MS,
  RELIABILITY_DATABASE_URL,
  readAcknowledged,
  type Served,
  serveOn,
} from './support.ts';

/** The resets: every connection every RESET_EVERY_MS, RESETS times; then every new one for RESET_MODE_MS. */
const RESET_EVERY_MS = 200;
const RESETS = 15;
const RESET_MODE_MS = 2_000;
/** How long PostgreSQL stays dead after kill -9 before it is started again. */
const DEAD_MS = 3_000;

const GATEWAY_ENV = {
  ...FAST_DATABASE_SETTINGS,
  // The scheduler's statements meet the faults too.
  SCHEDULER_INTERVAL_MS: '1000',
};

/** The text of a 503 for a database that cannot answer (the API's and OAuth's shapes alike). */
const UNAVAILABLE_TEXT =
  /^The service cannot answer now; try again in 5 seconds \(correlation id [0-9a-f-]{36}\)$/;

const runResets = needsPostgres('connection resets under load');
const noCluster = clusterUnavailable();
if (noCluster !== undefined)
  console.log(`# reliability: kill -9 of PostgreSQL under load skipped: ${noCluster}`);

interface FaultRun {
  readonly flows: readonly Flow[];
  readonly faultFrom: number;
  readonly backAt: number;
  readonly recoveredAt: number | undefined;
}

/** 8 workers run flows: 1.5 s served, then `fault`, then until a payment started after it is executed. */
async function faultUnderLoad(
  served: Served,
  tokens: { pis: string; ais: string },
  fault: () => Promise<void>,
): Promise<FaultRun> {
  const load = startFlowLoad(served, tokens, { workers: 8, boundMs: 60_000, consentEvery: 4 });
  await sleep(1_500);
  const faultFrom = Date.now();
  await fault();
  const backAt = Date.now();
  let recoveredAt: number | undefined;
  while (
    recoveredAt === undefined &&
    Date.now() < backAt + RECOVERY_BOUND_MS &&
    served.process.child.exitCode === null
  ) {
    const again = load.flows.find((flow) => flow.startedAt > backAt && flow.executed !== undefined);
    const executed = again?.calls.at(-1);
    if (executed !== undefined) recoveredAt = executed.startedAt + executed.tookMs;
    else await sleep(50);
  }
  await load.stop();
  return { flows: load.flows, faultFrom, backAt, recoveredAt };
}

/** The process is still running and wrote no unhandled error. */
function assertAlive(served: Served): void {
  const { child } = served.process;
  assert.deepEqual(
    { exitCode: child.exitCode, signal: child.signalCode },
    { exitCode: null, signal: null },
    `the gateway exited:\n${served.process.stderr()}`,
  );
  assert.doesNotMatch(served.process.stderr(), /Unhandled|ECONNRESET/, 'nothing unhandled on stderr');
}

/** What the gateway logged of the requests it answered 500 (the error's type, message and stack). */
function failuresLogged(served: Served): unknown[] {
  return served.process.lines().filter((line) => line.msg === 'request failed');
}

/** A 503 in the route's documented shape with Retry-After: OAuth's on the token endpoint, the API's elsewhere. */
function assertUnavailable(call: Call): void {
  const where = `${call.step} 503 ${JSON.stringify(call.refusal)}`;
  assert.equal(call.refusal?.retryAfter, '5', `${where}: Retry-After`);
  const body = call.refusal?.body as Record<string, unknown>;
  if (call.step === 'token') {
    assert.deepEqual(Object.keys(body), ['error', 'error_description'], where);
    assert.equal(body.error, 'temporarily_unavailable', where);
    assert.match(String(body.error_description), UNAVAILABLE_TEXT, where);
    return;
  }
  const text = String(body.moreInformation);
  assert.match(text, UNAVAILABLE_TEXT, where);
  assert.deepEqual(
    body,
    {
      httpCode: '503',
      httpMessage: 'Service Unavailable',
      moreInformation: text,
      tppMessages: [{ category: 'ERROR', code: 'SERVICE_UNAVAILABLE', text }],
    },
    where,
  );
}

/** Every call answered in time, the step's success or a 503 as documented; served again after the fault. */
function assertAnswered(served: Served, run: FaultRun, fault: string): void {
  const calls = run.flows.flatMap((flow) => flow.calls);
  const outcomes: Record<string, number> = {};
  for (const call of calls) {
    const key = `${call.step} ${call.outcome}`;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  }
  const slowest = Math.max(...calls.map((call) => call.tookMs));
  const recovered = run.recoveredAt === undefined ? 'never' : `${run.recoveredAt - run.backAt} ms`;
  console.log(
    `# ${fault}: ${run.flows.length} flows, ${calls.length} calls, answers ${JSON.stringify(outcomes)}, slowest ${slowest} ms, fault ${run.backAt - run.faultFrom} ms, a flow succeeded again ${recovered} after it`,
  );
  // Every call without an answer, or refused otherwise than with a 503 (a 500, a 400, an authorization
  // that redirects with an error), with what the gateway logged of its 500s.
  const wrong = calls.filter(
    (call) => typeof call.outcome !== 'number' || (call.refusal !== undefined && call.outcome !== 503),
  );
  assert.deepEqual(
    wrong.map((call) => `${call.step} ${call.outcome} ${JSON.stringify(call.refusal)}`),
    [],
    `answers other than success or 503; logged: ${JSON.stringify(failuresLogged(served))}`,
  );
  for (const call of calls) {
    if (call.outcome === 503) assertUnavailable(call);
    assert.ok(call.tookMs <= ANSWER_BOUND_MS, `${call.step} took ${call.tookMs} ms`);
  }
  assert.ok(
    calls.some((call) => call.outcome === 503),
    'the fault was felt: some calls were answered 503',
  );
  assert.ok(
    run.recoveredAt !== undefined,
    `no flow succeeded within ${RECOVERY_BOUND_MS} ms of the fault's end`,
  );
}

/** Every acknowledged payment readable with the status it was answered, every consent too; the ledger sound. */
async function assertKept(
  served: Served,
  tokens: { pis: string; ais: string },
  run: FaultRun,
  db: FreshDatabase,
) {
  const records = paymentRecords(run.flows);
  const statuses = await readAcknowledged(served, tokens.pis, records);
  for (const flow of run.flows)
    if (flow.executed !== undefined)
      assert.equal(
        statuses.get(flow.paymentId!),
        flow.executed,
        `${flow.paymentId}: the status it was answered`,
      );
  let consents = 0;
  for (const flow of run.flows) {
    if (flow.consentId === undefined) continue;
    consents++;
    const answer = await served.client.consents.status(flow.consentId, tokens.ais);
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      { status: 200, body: { consentStatus: flow.consentStatus } },
      flow.consentId,
    );
  }
  await assertLedgerSound(db);
  const executed = run.flows.filter((flow) => flow.executed !== undefined).length;
  console.log(
    `# read back: ${records.length} payments (${executed} executed) and ${consents} consents acknowledged`,
  );
}

/**
 * /readyz once it says 200, or what it says once a state seen during the fault (a call's failure is
 * answered for STATE_MAX_AGE_MS without a new probe) has aged out.
 */
async function readiness(served: Served): Promise<number> {
  const until = Date.now() + STATE_MAX_AGE_MS + 1_000;
  let status = (await fetch(`${served.url}/readyz`)).status;
  while (status !== 200 && Date.now() < until) {
    await sleep(100);
    status = (await fetch(`${served.url}/readyz`)).status;
  }
  return status;
}

async function tokensOf(served: Served) {
  return {
    pis: await served.client.clientCredentialsToken('PIS'),
    ais: await served.client.clientCredentialsToken('AIS'),
  };
}

/** DATABASE_URL naming the hosts, libpq's form when there are several. */
function urlOf(hostPorts: readonly string[], database: string): string {
  const query = hostPorts.length > 1 ? '?target_session_attrs=read-write' : '';
  return `postgres://postgres@${hostPorts.join(',')}/${database}${query}`;
}

// Each fault with DATABASE_URL naming one host, and naming two (libpq's form, target_session_attrs=
// read-write): the host locator's probes and routed connections must outlive the fault as the plain
// pool does.
for (const hosts of [1, 2] as const) {
  describe(`PostgreSQL connections reset under load (RST through a proxy), ${hosts} host(s) in DATABASE_URL`, {
    skip: !runResets,
  }, () => {
    let db: FreshDatabase;
    let proxies: DatabaseProxy[];
    let served: Served;
    let tokens: { pis: string; ais: string };
    let run: FaultRun;

    before(async () => {
      db = await createFreshDatabase(RELIABILITY_DATABASE_URL!);
      // Two proxies to the one server: two "hosts", both writable (the locator takes the first that
      // answers as read-write).
      proxies = [];
      for (let index = 0; index < hosts; index++) proxies.push(await startDatabaseProxy(new URL(db.url)));
      served = await serveOn(
        urlOf(
          proxies.map((proxy) => new URL(proxy.url).host),
          db.name,
        ),
        GATEWAY_ENV,
      );
      tokens = await tokensOf(served);
    });
    after(async () => {
      for (const proxy of proxies ?? []) proxy.set('pass');
      await served?.process.kill();
      for (const proxy of proxies ?? []) await proxy.close();
      await db?.drop();
    });

    test(`every connection reset every ${RESET_EVERY_MS} ms, then every new one: answered, alive, served again`, async () => {
      run = await faultUnderLoad(served, tokens, async () => {
        for (let reset = 0; reset < RESETS; reset++) {
          for (const proxy of proxies) proxy.resetAll();
          await sleep(RESET_EVERY_MS);
        }
        for (const proxy of proxies) proxy.set('reset');
        await sleep(RESET_MODE_MS);
        for (const proxy of proxies) proxy.set('pass');
      });
      assertAlive(served);
      assertAnswered(served, run, 'resets');
    });

    test('afterwards: alive, ready, every acknowledged payment and consent readable, the ledger sound', async () => {
      assertAlive(served);
      assert.equal(await readiness(served), 200);
      await assertKept(served, tokens, run, db);
    });
  });

  describe(`PostgreSQL killed with kill -9 under load, then started again, ${hosts} host(s) in DATABASE_URL`, {
    skip: noCluster !== undefined,
  }, () => {
    let cluster: PgCluster;
    let db: FreshDatabase;
    let served: Served;
    let tokens: { pis: string; ais: string };
    let run: FaultRun;

    before(async () => {
      // Two hosts: the primary and a standby that is never promoted (it must never be written to).
      cluster = await startCluster({ standbys: hosts - 1, synchronous: false });
      db = await createFreshDatabase(cluster.primary.url);
      const servers = [cluster.primary, ...cluster.standbys];
      served = await serveOn(
        urlOf(
          servers.map((server) => server.hostPort),
          db.name,
        ),
        GATEWAY_ENV,
      );
      tokens = await tokensOf(served);
    });
    after(async () => {
      await served?.process.kill();
      await cluster?.stop();
    });

    test(`kill -9, ${DEAD_MS} ms dead, started again: answered, alive, served again`, async () => {
      run = await faultUnderLoad(served, tokens, async () => {
        await cluster.primary.kill();
        await sleep(DEAD_MS);
        await cluster.primary.start();
      });
      assertAlive(served);
      assertAnswered(served, run, 'kill -9');
    });

    test('afterwards: alive, ready, every acknowledged payment and consent readable, the ledger sound', async () => {
      assertAlive(served);
      assert.equal(await readiness(served), 200);
      await assertKept(served, tokens, run, db);
    });
  });
}
