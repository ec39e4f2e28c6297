// npm run bench:statements: PostgreSQL's CPU for each stored initiation, the gateway's against a plain
// server's (issue 18). The same payments, with real instructions and answers, are stored three ways,
// 50 at a time, in alternating rounds:
//   gateway: the store's own insertPaymentAnswering (payment and request id in one statement, the
//            concurrent ones joined by the coalescer as under load);
//   gateway without foreign keys: the same, with the payments' foreign keys (the app, the debtor
//            account with its PSU; the basket's, which a single payment never checks) dropped for the
//            round and added again;
//   raw(work) + pg: the plain server's keep (bench/raw.ts: one table, a multi-row INSERT).
// The figure is the CPU of the database server over the round (its postmaster and every process it
// started: backends, WAL writer, checkpointer; bench/cpu.ts, from /proc), divided by the payments
// stored, so no other client of that server may run. It needs PostgreSQL on this machine
// (BENCH_DATABASE_URL or TEST_DATABASE_URL) and says so when it is not.
// STATEMENT_ROUNDS (4) rounds of STATEMENT_PAYMENTS (5,000) payments each way.
import { randomUUID } from 'node:crypto';
import {
  type PaymentBody,
  type PaymentInstruction,
  validatePaymentBody,
} from '../src/domain/payment-rules.ts';
import { newId } from '../src/domain/secrets.ts';
import { initiationProduct } from '../src/services/payments/initiation.ts';
import { insertPaymentAnswering, type NewPayment } from '../src/store/payments/insert.ts';
import { bankDate } from '../test/helpers/gateway.ts';
import { gateway } from './common.ts';
import { postmasterOf, serverCpuMs } from './cpu.ts';
import { initiationRequests, PRODUCT, prepareMixes } from './data.ts';
import { spread } from './figures.ts';
import { rawPgInitiations } from './raw.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const ROUNDS = Number(process.env.STATEMENT_ROUNDS ?? 4);
const PAYMENTS = Number(process.env.STATEMENT_PAYMENTS ?? 5000);
const CONCURRENT = Number(process.env.STATEMENT_CONCURRENT ?? 50);

interface Stored {
  readonly payment: NewPayment;
  readonly requestId: string;
  readonly statusCode: number;
  readonly body: PaymentBody;
  readonly answer: Record<string, unknown>;
}

/** `count` payments like the bench's realistic initiations, each answered as the gateway answered one. */
async function paymentsLike(url: string, requests: ReturnType<typeof initiationRequests>, count: number) {
  const product = initiationProduct(PRODUCT);
  const templates: {
    clientId: string;
    body: PaymentBody & { debtorAccount: { value: string } };
    instruction: PaymentInstruction;
    statusCode: number;
    answer: unknown;
  }[] = [];
  for (const request of requests.slice(0, 50)) {
    const response = await fetch(url + request.path, {
      method: request.method,
      headers: { ...request.headers, 'TPP-Request-ID': randomUUID() },
      body: request.body ?? null,
    });
    if (!response.ok) throw new Error(`initiation answered ${response.status}: ${await response.text()}`);
    const body = JSON.parse(request.body!) as PaymentBody & { debtorAccount: { value: string } };
    const clientId = request.headers['X-Gateway-Client-Id']!;
    const validated = validatePaymentBody(product, body, { country: 'SE', today: bankDate() });
    if (!validated.ok)
      throw new Error(`the bench's payment is refused: ${JSON.stringify(validated.messages)}`);
    const answer: unknown = await response.json();
    templates.push({ clientId, body, instruction: validated.value, statusCode: response.status, answer });
  }
  return (debtors: ReadonlyMap<string, { accountId: string; psuId: string }>): Stored[] =>
    Array.from({ length: count }, (_, index) => {
      const template = templates[index % templates.length]!;
      const debtor = debtors.get(template.body.debtorAccount.value);
      if (debtor === undefined) throw new Error(`no bench account ${template.body.debtorAccount.value}`);
      const id = newId();
      return {
        payment: {
          id,
          clientId: template.clientId,
          customerType: 'private',
          psuId: debtor.psuId,
          corporateId: null,
          debtorAccountId: debtor.accountId,
          debtorCurrency: 'SEK',
          instruction: template.instruction,
        },
        requestId: randomUUID(),
        statusCode: template.statusCode,
        body: template.body,
        answer: { ...(template.answer as Record<string, unknown>), paymentId: id },
      };
    });
}

/** Runs `store` over the items, CONCURRENT at a time; answers PostgreSQL's CPU in µs per item. */
async function costOf(
  postmaster: number,
  items: readonly Stored[],
  store: (item: Stored) => Promise<unknown>,
): Promise<number> {
  const began = serverCpuMs(postmaster);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      while (next < items.length) await store(items[next++]!);
    }),
  );
  return ((serverCpuMs(postmaster) - began) * 1000) / items.length;
}

async function main(): Promise<void> {
  if (DATABASE_URL === undefined) {
    console.log('statement cost: skipped, it needs PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL)');
    return;
  }
  const postmaster = await postmasterOf(DATABASE_URL);
  if (postmaster === undefined) {
    console.log(
      'statement cost: skipped, the database server does not run on this machine (its CPU is unseen)',
    );
    return;
  }
  const target = await gateway(DATABASE_URL);
  const plain = await rawPgInitiations(DATABASE_URL);
  try {
    const { realistic } = await prepareMixes(target);
    const debtors = new Map(realistic.debtors.map((debtor) => [debtor.bban, debtor]));
    const make = await paymentsLike(target.url, initiationRequests(realistic), PAYMENTS);
    const ways: Record<string, (items: readonly Stored[]) => Promise<number>> = {
      gateway: (items) =>
        // Without an Idempotency-Key, as clients of the real service send it: the payment alone (issue 40).
        costOf(postmaster, items, ({ payment }) =>
          insertPaymentAnswering(target.store.db, payment, undefined),
        ),
      'gateway without foreign keys': async (items) => {
        // The payments' foreign keys as the migrations made them, read from the database.
        const keys = (await target.store.withExclusiveLock((run) =>
          run(`SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
                WHERE conrelid = 'payments'::regclass AND contype = 'f'`),
        )) as { name: string; definition: string }[];
        if (keys.length === 0) throw new Error('the payments have no foreign keys to leave out');
        const alter = (change: (key: { name: string; definition: string }) => string) =>
          target.store.withExclusiveLock((run) =>
            run(keys.map((key) => `ALTER TABLE payments ${change(key)};`).join('\n')),
          );
        await alter((key) => `DROP CONSTRAINT ${key.name}`);
        try {
          return await ways.gateway!(items);
        } finally {
          await alter((key) => `ADD CONSTRAINT ${key.name} ${key.definition}`);
        }
      },
      'raw(work) + pg': (items) =>
        costOf(postmaster, items, ({ payment, requestId, body, answer }) =>
          plain.keep({ clientId: payment.clientId, requestId, paymentId: payment.id, body, answer }),
        ),
    };
    const costs = new Map<string, number[]>(Object.keys(ways).map((way) => [way, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [way, measure] of Object.entries(ways)) costs.get(way)!.push(await measure(make(debtors)));
    }
    console.log(
      `PostgreSQL's CPU per stored initiation (${ROUNDS} rounds of ${PAYMENTS}, ${CONCURRENT} at a time; median (lowest-highest)):`,
    );
    for (const [way, values] of costs) {
      const { median, min, max } = spread(values, 1);
      console.log(`  ${way.padEnd(30)} ${median} µs (${min}-${max})`);
    }
  } finally {
    await plain.close();
    await target.close();
  }
}

await main();
