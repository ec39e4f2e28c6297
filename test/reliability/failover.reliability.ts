// Failover under load (issue 42): a primary and a streaming standby of the test's own, the gateway as a
// process on both (DATABASE_URL in libpq's multi-host form), complete payment flows and consents driven
// by concurrent clients. Mid-load the primary is killed with -9; a second later, as a failover manager
// would, the standby is promoted. The gateway must find the new primary by itself and serve again;
// meanwhile every request is answered, 503 with Retry-After at worst. Afterwards the new primary is read
// directly: with synchronous replication every acknowledged initiation, execution and consent is there
// with the status it was answered (or a later one the life cycle allows), the ledger balanced, nothing
// booked twice. With asynchronous replication what was lost is reported, so that a bank can choose.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpAnswer, TokenAnswer } from '@psd2-gateway/client';
import { TRANSITIONS, type TransactionStatus } from '../../src/domain/payment.ts';
import { parseDatabaseHosts } from '../../src/store/database/hosts.ts';
import { domestic } from '../helpers/payments.ts';
import { clusterUnavailable, type PgCluster, type PgServer, startCluster } from '../helpers/pg-cluster.ts';
import {
  ANSWER_BOUND_MS,
  assertLedgerSound,
  databaseAt,
  type Exchange,
  FAST_DATABASE_SETTINGS,
  INITIATE,
  PRODUCT,
  RecordingClient,
  type Served,
  serveOn,
} from './support.ts';

/** How long a failover manager takes to notice that the primary is gone before it promotes. */
const DETECTION_MS = 1_000;
const PAYMENT_WORKERS = 20;
const CONSENT_WORKERS = 5;
/** Complete flows before the kill, and again after the promotion (started after it). */
const FLOWS = { payment: 20, consent: 5 } as const;
const BEFORE_KILL_BOUND_MS = 30_000;
const AFTER_PROMOTION_BOUND_MS = 30_000;
/**
 * Between tries of a step answered 503. A TPP would wait Retry-After (5 s); the load tries again
 * sooner so that the first 200 after the failover is seen when it happens, not up to 5 s later.
 */
const PAUSE_MS = 200;
/** A step's tries: more than the load's whole time allows. */
const MAX_TRIES = Math.ceil((BEFORE_KILL_BOUND_MS + AFTER_PROMOTION_BOUND_MS) / PAUSE_MS);

/** Consent statuses a consent may have moved to after the one it was answered; the load only approves. */
const CONSENT_LATER: Readonly<Record<string, readonly string[]>> = { received: ['valid'], valid: [] };

const unavailable = clusterUnavailable();
if (unavailable !== undefined) console.log(`# reliability: failover under load skipped: ${unavailable}`);

type Kind = 'payment' | 'consent';

/** One flow of the load, and what it was acknowledged. */
interface Flow {
  readonly kind: Kind;
  readonly startedAt: number;
  /** The payment's or the consent's id, once its creation was answered with success. */
  id?: string;
  /** The last status a success answered: the initiation's, then the execution's; received, then valid. */
  acknowledged?: string;
  completedAt?: number;
  /** The step answered neither with success nor 503 (or the load ended while it was refused). */
  refused?: { step: string; status?: number };
}

interface Load {
  readonly flows: Flow[];
  readonly client: RecordingClient;
  over(): boolean;
}

/** A step, tried again after each 503 until it is answered otherwise; undefined when the load ended first. */
async function untilServed<T>(
  load: Load,
  step: () => Promise<HttpAnswer<T>>,
): Promise<HttpAnswer<T> | undefined> {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const answer = await step();
    if (answer.status !== 503) return answer;
    if (load.over()) return undefined;
    await sleep(PAUSE_MS);
  }
  return undefined;
}

/** The PSU approves `scope` at once (the sandbox) and the code is exchanged; a 503 on either redoes both. */
function approve(load: Load, scope: string): Promise<HttpAnswer<unknown> | undefined> {
  return untilServed(load, async () => {
    const asked = await load.client.authorizationRequest(scope, randomUUID());
    const location = asked.status === 302 ? asked.headers.get('location') : null;
    const code = location === null ? null : new URL(location).searchParams.get('code');
    return code === null ? asked : load.client.exchangeCode(scope, code);
  });
}

/** Initiation (with an Idempotency-Key, so that a retry after a 503 is the same payment), approval, execution. */
async function paymentFlow(load: Load, token: string, flow: Flow): Promise<void> {
  const key = randomUUID();
  const initiated = await untilServed(load, () =>
    load.client.initiate(token, {
      path: INITIATE,
      body: domestic({ instructedAmount: { currency: 'SEK', amount: '1.25' } }),
      idempotencyKey: key,
    }),
  );
  if (initiated?.status !== 200) return refuse(flow, 'initiation', initiated);
  const paymentId = initiated.body.paymentId;
  flow.id = paymentId;
  flow.acknowledged = initiated.body.transactionStatus;
  const approved = await approve(load, `PIS:${paymentId}`);
  if (approved?.status !== 200) return refuse(flow, 'approval', approved);
  const psuToken = (approved.body as TokenAnswer).access_token;
  const executed = await untilServed(load, () => load.client.execute(PRODUCT, paymentId, psuToken));
  if (executed?.status !== 200) return refuse(flow, 'execution', executed);
  flow.acknowledged = executed.body.transactionStatus;
  flow.completedAt = Date.now();
}

/** A consent asked for (201, received) and approved by the PSU (valid once the code is exchanged). */
async function consentFlow(load: Load, token: string, flow: Flow): Promise<void> {
  const created = await untilServed(load, () => load.client.consents.create(token));
  if (created?.status !== 201) return refuse(flow, 'consent', created);
  const consentId = created.body.consentId;
  flow.id = consentId;
  flow.acknowledged = created.body.consentStatus;
  const approved = await approve(load, `AIS:${consentId}`);
  if (approved?.status !== 200) return refuse(flow, 'approval', approved);
  flow.acknowledged = 'valid';
  flow.completedAt = Date.now();
}

function refuse(flow: Flow, step: string, answer: HttpAnswer<unknown> | undefined): void {
  flow.refused = { step, status: answer?.status };
}

/** The workers run flows one after another until `stop` or the bound; an unanswered request ends a flow. */
function startLoad(client: RecordingClient, tokens: { pis: string; ais: string }, boundMs: number) {
  const until = Date.now() + boundMs;
  let stopped = false;
  const load: Load = { flows: [], client, over: () => stopped || Date.now() > until };
  const worker = async (kind: Kind) => {
    while (!load.over()) {
      const flow: Flow = { kind, startedAt: Date.now() };
      load.flows.push(flow);
      try {
        if (kind === 'payment') await paymentFlow(load, tokens.pis, flow);
        else await consentFlow(load, tokens.ais, flow);
      } catch {
        // No answer (the client recorded why): the next flow after a pause.
        flow.refused = { step: 'transport' };
        await sleep(PAUSE_MS);
      }
    }
  };
  const done = Promise.all([
    ...Array.from({ length: PAYMENT_WORKERS }, () => worker('payment')),
    ...Array.from({ length: CONSENT_WORKERS }, () => worker('consent')),
  ]);
  return {
    load,
    completed: (kind: Kind, since: number) =>
      load.flows.filter((f) => f.kind === kind && f.completedAt !== undefined && f.startedAt >= since).length,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

async function waitFor(condition: () => boolean, boundMs: number): Promise<boolean> {
  const until = Date.now() + boundMs;
  while (!condition() && Date.now() < until) await sleep(50);
  return condition();
}

interface Failover {
  readonly flows: readonly Flow[];
  readonly exchanges: readonly Exchange[];
  /** WAL the primary had written that the standby had not received, a moment before the kill. */
  readonly lagBytes: number;
  /** When the primary's processes had all been sent SIGKILL. */
  readonly killedAt: number;
  /** When `pg_ctl promote` was started (the failover manager's decision). */
  readonly promotionAskedAt: number;
  /** When the standby was seen to take writes (pg_is_in_recovery() false, polled every 100 ms). */
  readonly promotedAt: number;
  readonly resumed: boolean;
}

/** Load; kill -9 of the primary; the standby promoted after DETECTION_MS; load until flows complete again. */
async function failoverUnderLoad(cluster: PgCluster, served: Served, scenario: Scenario): Promise<Failover> {
  const client = new RecordingClient(served.url, served.client.clientId, served.client.redirectUri);
  const tokens = {
    pis: await client.clientCredentialsToken('PIS'),
    ais: await client.clientCredentialsToken('AIS'),
  };
  const load = startLoad(client, tokens, BEFORE_KILL_BOUND_MS + AFTER_PROMOTION_BOUND_MS + 10_000);
  const enough = (since: number) =>
    load.completed('payment', since) >= FLOWS.payment && load.completed('consent', since) >= FLOWS.consent;
  try {
    assert.ok(await waitFor(() => enough(0), BEFORE_KILL_BOUND_MS), 'flows completed before the kill');
    const standby = cluster.standbys[0]!;
    if (scenario.cutOffMs > 0) {
      await cutOff(standby);
      await sleep(scenario.cutOffMs);
    }
    const [received] = await standby.query<{ lsn: string }>('SELECT pg_last_wal_receive_lsn()::text AS lsn');
    const [lag] = await cluster.primary.query<{ bytes: number }>(
      'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::int AS bytes',
      [received?.lsn],
    );
    await cluster.primary.kill();
    const killedAt = Date.now();
    await sleep(DETECTION_MS);
    const promotionAskedAt = Date.now();
    await standby.promote();
    const promotedAt = Date.now();
    const resumed = await waitFor(() => enough(promotedAt), AFTER_PROMOTION_BOUND_MS);
    return {
      flows: load.load.flows,
      exchanges: client.exchanges,
      lagBytes: lag?.bytes ?? Number.NaN,
      killedAt,
      promotionAskedAt,
      promotedAt,
      resumed,
    };
  } finally {
    await load.stop();
  }
}

/** A write of the load answered with success: an initiation, an execution, a consent's creation. */
function isWrite(exchange: Exchange): boolean {
  return (
    (exchange.method === 'POST' || exchange.method === 'PUT') &&
    !exchange.path.startsWith('/oauth2') &&
    (exchange.status === 200 || exchange.status === 201)
  );
}

/** The acknowledged payments and consents that the new primary does not hold with that status or a later one. */
async function lostOn(url: string, flows: readonly Flow[]) {
  const db = databaseAt(url);
  const acknowledged = (kind: Kind) => flows.filter((f) => f.kind === kind && f.acknowledged !== undefined);
  const payments = acknowledged('payment');
  const consents = acknowledged('consent');
  const paymentRows = await db.query<{ id: string; status: string }>(
    'SELECT payment_id AS id, status FROM payments WHERE payment_id = ANY($1::text[])',
    [payments.map((f) => f.id)],
  );
  const consentRows = await db.query<{ id: string; status: string }>(
    'SELECT consent_id AS id, status FROM consents WHERE consent_id = ANY($1::text[])',
    [consents.map((f) => f.id)],
  );
  const found = new Map([...paymentRows, ...consentRows].map((row) => [row.id, row.status]));
  const later = (flow: Flow, status: string) =>
    flow.kind === 'payment'
      ? (TRANSITIONS[flow.acknowledged as TransactionStatus] as readonly string[]).includes(status)
      : (CONSENT_LATER[flow.acknowledged!] ?? []).includes(status);
  const lost = [...payments, ...consents]
    .map((flow) => ({
      kind: flow.kind,
      id: flow.id,
      answered: flow.acknowledged,
      found: found.get(flow.id!),
    }))
    .filter(
      (entry) =>
        entry.found === undefined ||
        (entry.found !== entry.answered && !later(flows.find((f) => f.id === entry.id)!, entry.found)),
    );
  const executions = payments.filter((f) => f.completedAt !== undefined).length;
  return {
    lost,
    counts: { initiations: payments.length, executions, consents: consents.length },
  };
}

/** A retried initiation answered that its key is still claimed (by the try the kill cut). */
function heldKey(exchange: Exchange): boolean {
  return (
    exchange.status === 409 && exchange.code === 'IDEMPOTENCY_KEY_IN_FLIGHT' && exchange.path === INITIATE
  );
}

/** How many of each were lost: `payment ACCC -> ACTC` (executed, found not executed), `consent valid -> none`. */
function lostByKind(lost: readonly { kind: Kind; answered?: string; found?: string }[]) {
  const counts: Record<string, number> = {};
  for (const { kind, answered, found } of lost) {
    const key = `${kind} ${answered} -> ${found ?? 'none'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** When the first write asked after the kill was answered with success (the new primary serving). */
function firstServedAfterKill(run: Failover): number | undefined {
  return run.exchanges
    .filter((e) => isWrite(e) && e.startedAt >= run.killedAt)
    .map((e) => e.startedAt + e.tookMs)
    .sort((a, b) => a - b)[0];
}

/** The figures of a run, in one line of the test's output. */
function report(mode: string, run: Failover, counts: Record<string, number>, lost: number): void {
  const served = firstServedAfterKill(run);
  const since = (from: number) => (served === undefined ? 'never' : `${served - from} ms`);
  const unavailable = run.exchanges.filter((e) => e.status === 503);
  const inWindow = unavailable.filter((e) => e.startedAt >= run.killedAt && e.startedAt <= (served ?? 0));
  const last503 = Math.max(...unavailable.map((e) => e.startedAt + e.tookMs)) - run.killedAt;
  const held = run.exchanges.filter(heldKey).length;
  const slowest = Math.max(...run.exchanges.map((e) => e.tookMs));
  console.log(
    `# failover (${mode}): kill -> first 200 on the new primary ${since(run.killedAt)}; ` +
      `promotion -> first 200 ${since(run.promotionAskedAt)} ` +
      `(pg_ctl promote started ${run.promotionAskedAt - run.killedAt} ms after the kill, writable after ${run.promotedAt - run.promotionAskedAt} ms); ` +
      `${run.exchanges.length} requests, ${unavailable.length} answered 503 (${inWindow.length} asked before the first 200, the last answered ${last503} ms after the kill), ` +
      `${held} initiation retries answered 409 IDEMPOTENCY_KEY_IN_FLIGHT, slowest answer ${slowest} ms; ` +
      `acknowledged ${counts.initiations} initiations, ${counts.executions} executions, ${counts.consents} consents; ` +
      `replication lag at the kill ${run.lagBytes} bytes; lost ${lost}`,
  );
}

/**
 * The standby stops streaming (its primary_conninfo emptied, as when the link between the two machines
 * goes): an asynchronous primary goes on acknowledging commits that only it holds.
 */
async function cutOff(standby: PgServer): Promise<void> {
  await standby.query("ALTER SYSTEM SET primary_conninfo = ''");
  await standby.query('SELECT pg_reload_conf()');
  for (let tries = 0; tries < 100; tries++) {
    const [row] = await standby.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_wal_receiver');
    if (row?.n === 0) return;
    await sleep(50);
  }
  throw new Error('the standby still streams');
}

interface Scenario {
  readonly mode: string;
  readonly synchronous: boolean;
  /** How long before the kill the standby stops streaming (0: it streams until the kill). */
  readonly cutOffMs: number;
}

const SCENARIOS: readonly Scenario[] = [
  { mode: 'synchronous', synchronous: true, cutOffMs: 0 },
  { mode: 'asynchronous', synchronous: false, cutOffMs: 0 },
  { mode: 'asynchronous, the standby cut off 1 s before the kill', synchronous: false, cutOffMs: 1_000 },
  // Commits wait for the missing standby: answered 503 once the database bounds end the wait, never 200.
  { mode: 'synchronous, the standby cut off 3 s before the kill', synchronous: true, cutOffMs: 3_000 },
];

for (const scenario of SCENARIOS) {
  const { mode, synchronous } = scenario;
  describe(`failover under load, ${mode} replication`, { skip: unavailable !== undefined }, () => {
    let cluster: PgCluster | undefined;
    let served: Served | undefined;
    let run: Failover;

    before(async () => {
      cluster = await startCluster({ standbys: 1, synchronous });
      served = await serveOn(cluster.url, FAST_DATABASE_SETTINGS);
    });
    after(async () => {
      await served?.process.kill();
      await cluster?.stop();
    });

    test('the primary killed mid-load, the standby promoted: flows complete again', async () => {
      run = await failoverUnderLoad(cluster!, served!, scenario);
      assert.ok(
        run.resumed,
        `flows did not complete again within ${AFTER_PROMOTION_BOUND_MS} ms of the promotion`,
      );
      assert.equal(served!.process.child.exitCode, null, `the gateway exited: ${served!.process.stderr()}`);
      assert.equal((await fetch(`${served!.url}/readyz`)).status, 200, 'ready again');
      // Nothing can be written between the kill and the promotion: no server takes writes.
      const early = run.exchanges.filter(
        (e) => isWrite(e) && e.startedAt >= run.killedAt && e.startedAt + e.tookMs < run.promotionAskedAt,
      );
      assert.deepEqual(early, [], 'no write acknowledged while there was no primary');
    });

    test('every request answered: success, or 503 with Retry-After, within the bound; never a 500', () => {
      const unanswered = run.exchanges.filter((e) => e.status === undefined);
      assert.deepEqual(unanswered, [], 'every request answered');
      for (const e of run.exchanges) {
        assert.ok(e.status! < 500 || e.status === 503, `${e.method} ${e.path}: ${e.status} ${e.code}`);
        if (e.status === 503) {
          assert.ok(
            e.retryAfter !== null && Number(e.retryAfter) > 0,
            `${e.path}: Retry-After ${e.retryAfter}`,
          );
          // The token endpoint answers in OAuth's shape; the authorize endpoint, like the API, in the API's.
          const expected = e.path === '/oauth2/token/1.0' ? 'temporarily_unavailable' : 'SERVICE_UNAVAILABLE';
          assert.equal(e.code, expected, `${e.method} ${e.path}`);
        }
        assert.ok(e.tookMs <= ANSWER_BOUND_MS, `${e.method} ${e.path} took ${e.tookMs} ms`);
      }
      // With synchronous replication nothing acknowledged goes, so no step finds its resource gone. An
      // initiation's retry may find its key still claimed by the try the kill cut: the claim was committed
      // (and replicated) before the work, and the dead primary could not give it back; it holds the key
      // until its lease ends, by design (decisions, "Idempotency-Key").
      if (synchronous) {
        const others = run.exchanges.filter((e) => ![200, 201, 302, 503].includes(e.status!) && !heldKey(e));
        assert.deepEqual(others, [], 'every answer a success or a 503');
      }
    });

    test(
      synchronous
        ? 'nothing acknowledged lost: the new primary holds each payment and consent with the status it was answered'
        : 'what asynchronous replication lost is reported; the ledger balanced on what is there',
      async () => {
        const newPrimary = cluster!.standbys[0]!;
        const url = parseDatabaseHosts(cluster!.url).urlFor({ host: '127.0.0.1', port: newPrimary.port });
        const { lost, counts } = await lostOn(url, run.flows);
        report(mode, run, counts, lost.length);
        if (lost.length > 0) console.log(`# failover (${mode}): lost ${JSON.stringify(lostByKind(lost))}`);
        if (synchronous) assert.deepEqual(lost, [], 'every acknowledged write on the new primary');
        await assertLedgerSound(databaseAt(url));
      },
    );
  });
}
