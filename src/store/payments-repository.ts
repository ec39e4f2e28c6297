import { and, asc, eq, getTableColumns, inArray, isNotNull, isNull, lt, lte, sql } from 'drizzle-orm';
import { canMove, type Payment, type PaymentStatusView, type TransactionStatus } from '../domain/payment.ts';
import type { PaymentInstruction } from '../domain/payment-rules.ts';
import type { Country, CustomerType, PaymentProduct } from '../domain/products.ts';
import { batchedRead } from './batched-read.ts';
import { joinedStatement } from './coalescer.ts';
import { type Db, runStatement, type StoreDb } from './database.ts';
import {
  inClaimOrder,
  type RecordedAnswer,
  type RequestKey,
  requestKeyOf,
} from './idempotency-repository.ts';
import { payments } from './schema.ts';

/** A payment row with its message instead of the whole instruction (which the reads here do not need). */
type Row = Omit<typeof payments.$inferSelect, 'instruction'> & { readonly remittance: string | null };

/** The columns a payment is read with: every one but the instruction, of which only the message. */
const { instruction: _instruction, ...plainColumns } = getTableColumns(payments);
export const paymentColumns = {
  ...plainColumns,
  remittance: sql<string | null>`${payments.instruction}->>'remittance'`,
};

export function toPayment(row: Row): Payment {
  // Object.assign onto the view, not `{ ...toStatusView(row), ... }`: on Node 20 that spread followed by
  // members cost 10 µs here (docs/decisions.md, "Spreads followed by members").
  return Object.assign(toStatusView(row), {
    customerType: row.customerType as CustomerType,
    corporateId: row.corporateId,
    debtorAccountId: row.debtorAccountId,
    creditorName: row.creditorName,
    creditorAccount: row.creditorAccount,
    requestedExecutionDate: row.requestedExecutionDate,
    createdAt: row.createdAt,
    tppPaymentReference: row.tppPaymentReference,
    remittance: row.remittance,
    booking:
      row.bookingKey === null || row.bookingStartedAt === null
        ? null
        : { key: row.bookingKey, startedAt: row.bookingStartedAt },
  });
}

/** The columns a status read takes (find_statuses): the view's, named as in a payment's row. */
type StatusRow = Pick<
  Row,
  Exclude<keyof PaymentStatusView, 'id' | 'amount'> | 'paymentId' | 'currency' | 'amountMinor'
>;

function toStatusView(row: StatusRow): PaymentStatusView {
  return {
    id: row.paymentId,
    clientId: row.clientId,
    product: row.product as PaymentProduct,
    country: row.country as Country,
    psuId: row.psuId,
    basketId: row.basketId,
    status: row.status as TransactionStatus,
    executedAt: row.executedAt,
    reasonCode: row.reasonCode,
    reason: row.reason,
    debtorCurrency: row.debtorCurrency,
    amount: { currency: row.currency, minor: row.amountMinor },
  };
}

export interface NewPayment {
  readonly id: string;
  readonly clientId: string;
  readonly customerType: CustomerType;
  readonly psuId: string;
  readonly corporateId: string | null;
  readonly debtorAccountId: string;
  readonly debtorCurrency: string;
  readonly instruction: PaymentInstruction;
}

/** What a new payment has of its own; its app, PSU and customer may be named once for several. */
export type PaymentOfRow = Pick<NewPayment, 'id' | 'debtorAccountId' | 'debtorCurrency' | 'instruction'>;

/**
 * A new payment as a statement takes it: `[id, debtor account id, debtor currency, instruction]`. The
 * columns that repeat the instruction (product, country, amount, creditor, date) are taken from it by
 * the statement (`newPaymentValues`), so that each value travels once: the database parses the JSON
 * parameter in proportion to its length, and with a key per column and the instruction's values twice
 * that was a sixth of its work on a basket (issue 18, docs/decisions.md).
 */
export function newPaymentTuple(payment: PaymentOfRow): readonly unknown[] {
  return [payment.id, payment.debtorAccountId, payment.debtorCurrency, payment.instruction];
}

/** The columns `newPaymentValues` gives, in its order. */
export const NEW_PAYMENT_COLUMNS = `payment_id, client_id, product, country, customer_type, psu_id, corporate_id,
  debtor_account_id, amount_minor, currency, creditor_name, creditor_account, requested_execution_date,
  status, instruction, debtor_currency`;

/**
 * The select list of a new payment in ACTC from `tuple`, an SQL expression of `newPaymentTuple`'s form,
 * and the row `input`, which names the payment's app, customer type, PSU and corporate id ("clientId",
 * "customerType", "psuId", "corporateId"). The paths (`#>>`) read the instruction where it lies in the
 * parameter instead of copying it for each column.
 */
export function newPaymentValues(tuple: string, input: string): string {
  return `${tuple} ->> 0, ${input}."clientId", ${tuple} #>> '{3,product}', ${tuple} #>> '{3,country}',
    ${input}."customerType", ${input}."psuId", ${input}."corporateId", ${tuple} ->> 1,
    (${tuple} #>> '{3,amount,minor}')::bigint, ${tuple} #>> '{3,amount,currency}',
    ${tuple} #>> '{3,creditor,name}', ${tuple} #>> '{3,creditor,account}',
    (${tuple} #>> '{3,requestedExecutionDate}')::date, 'ACTC', ${tuple} -> 3, ${tuple} ->> 2`;
}

/**
 * Stores a new payment together with the answer to the request that created it, in one statement
 * (atomic without a transaction). Answers false, storing nothing, when the app already used the
 * request id: on PostgreSQL a concurrent claim of the same id waits for the first to commit.
 * Concurrent initiations share a statement and a commit (see coalescer.ts). The request id is the
 * payment's app's: `answer.key.clientId` is `payment.clientId`.
 */
export function insertPaymentAnswering(
  db: StoreDb,
  payment: NewPayment,
  answer: RecordedAnswer,
): Promise<boolean> {
  if (answer.key.clientId !== payment.clientId) throw new Error('a request id of another app');
  return initiations(db, { payment, answer });
}

interface Initiation {
  readonly payment: NewPayment;
  readonly answer: RecordedAnswer;
}

const initiations = joinedStatement('insert_payments_answering', insertPaymentsAnswering, {
  key: requestKeyOf,
});

/**
 * The payments whose request ids were still free, in one statement. The rows travel as one JSON
 * array (cheaper to send than a parameter per column); they go in the order of their request ids, so
 * that two statements claiming the same ids lock them in the same order.
 */
async function insertPaymentsAnswering(db: StoreDb, items: readonly Initiation[]): Promise<boolean[]> {
  const rows = inClaimOrder(items).map(({ payment, answer }) => ({
    clientId: payment.clientId,
    requestId: answer.key.requestId,
    fingerprint: answer.fingerprint,
    statusCode: answer.statusCode,
    body: answer.body,
    customerType: payment.customerType,
    psuId: payment.psuId,
    corporateId: payment.corporateId,
    payment: newPaymentTuple(payment),
  }));
  const stored = await runStatement<{ paymentId: string }>(
    db,
    'insert_payments_answering',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("clientId" text, "requestId" text, fingerprint text, "statusCode" integer, body jsonb,
              "customerType" text, "psuId" text, "corporateId" text, payment jsonb)
     ),
     claim AS (
       INSERT INTO idempotency_keys (client_id, request_id, fingerprint, status_code, body)
       SELECT "clientId", "requestId", fingerprint, "statusCode", body FROM input
       ON CONFLICT DO NOTHING
       RETURNING client_id, request_id
     )
     INSERT INTO payments (${NEW_PAYMENT_COLUMNS})
     SELECT ${newPaymentValues('i.payment', 'i')}
       FROM input i JOIN claim c ON c.client_id = i."clientId" AND c.request_id = i."requestId"
     RETURNING payment_id AS "paymentId"`,
    [JSON.stringify(rows)],
  );
  const ids = new Set(stored.map((row) => row.paymentId));
  return items.map(({ payment }) => ids.has(payment.id));
}

/** A payment by id; concurrent reads share a statement (see coalescer.ts). */
export function findPayment(db: StoreDb, paymentId: string): Promise<Payment | undefined> {
  return paymentReads(db, paymentId);
}

const paymentReads = joinedStatement('find_payments', findPayments);

async function findPayments(db: StoreDb, paymentIds: readonly string[]): Promise<(Payment | undefined)[]> {
  const rows = await runStatement<Row>(
    db,
    'find_payments',
    `SELECT payment_id AS "paymentId", client_id AS "clientId", product, country, customer_type AS "customerType",
            psu_id AS "psuId", corporate_id AS "corporateId", debtor_account_id AS "debtorAccountId",
            amount_minor::float8 AS "amountMinor", currency, creditor_name AS "creditorName",
            creditor_account AS "creditorAccount", requested_execution_date::text AS "requestedExecutionDate",
            status, created_at AS "createdAt", executed_at AS "executedAt", basket_id AS "basketId",
            tpp_payment_reference AS "tppPaymentReference", debtor_currency AS "debtorCurrency",
            reason_code AS "reasonCode", reason, instruction->>'remittance' AS remittance,
            booking_key AS "bookingKey", booking_started_at AS "bookingStartedAt"
       FROM unnest($1::text[]) AS wanted (id),
            LATERAL (SELECT * FROM payments WHERE payment_id = wanted.id LIMIT 1) AS payment`,
    [paymentIds],
  );
  const found = new Map(rows.map((row) => [row.paymentId, toPayment(row)]));
  return paymentIds.map((id) => found.get(id));
}

// Only the columns a status answer and its access checks need: a status read is the most frequent
// call, and the full row (three dates to parse, the remittance out of the instruction) cost it more.
const statusReads = batchedRead<string, StatusRow>(
  'find_statuses',
  `SELECT w.item::int AS item, p.payment_id AS "paymentId", p.client_id AS "clientId", p.product, p.country,
          p.psu_id AS "psuId", p.basket_id AS "basketId", p.status, p.executed_at AS "executedAt",
          p.reason_code AS "reasonCode", p.reason, p.debtor_currency AS "debtorCurrency", p.currency,
          p.amount_minor::float8 AS "amountMinor"
     FROM unnest($1::text[]) WITH ORDINALITY AS w (id, item) JOIN payments p ON p.payment_id = w.id
    WHERE p.payment_id = ANY ($1::text[])`,
  (ids) => [[...ids]],
);

/** What a status read needs of a payment by id; concurrent reads share a statement (see batched-read.ts). */
export async function findPaymentStatus(
  db: StoreDb,
  paymentId: string,
): Promise<PaymentStatusView | undefined> {
  const [row] = await statusReads(db, paymentId);
  return row === undefined ? undefined : toStatusView(row);
}

/** Reads a payment and locks its row until the transaction ends (SELECT ... FOR UPDATE). */
export async function lockPayment(trx: Db, paymentId: string): Promise<Payment | undefined> {
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.paymentId, paymentId))
    .limit(1)
    .for('update');
  return rows[0] === undefined ? undefined : toPayment(rows[0]);
}

/** Reads payments and locks their rows until the transaction ends, in id order (lockers never deadlock). */
export async function lockPayments(trx: Db, paymentIds: readonly string[]): Promise<Payment[]> {
  if (paymentIds.length === 0) return [];
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(inArray(payments.paymentId, [...paymentIds]))
    .orderBy(asc(payments.paymentId))
    .for('update');
  return rows.map((row) => toPayment(row));
}

/**
 * Due future-dated payments with no booking under way, locked for this transaction; rows another
 * process has locked are skipped, so several schedulers share the work and ask each booking once.
 */
export async function lockDuePayments(trx: Db, today: string, limit: number): Promise<Payment[]> {
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(
      and(
        eq(payments.status, 'ACCP'),
        lte(payments.requestedExecutionDate, today),
        isNull(payments.bookingKey),
      ),
    )
    .orderBy(asc(payments.requestedExecutionDate), asc(payments.paymentId))
    .limit(limit)
    .for('update', { skipLocked: true });
  return rows.map((row) => toPayment(row));
}

/**
 * Marks payments still in `from` as waiting for the core banking system's answer to the order `key`,
 * in one statement; a payment marked before keeps its mark. Answers each marked payment's mark (the
 * earlier one where there was one); a payment no longer in `from` is left out.
 */
export async function markBooking(
  db: Db,
  paymentIds: readonly string[],
  key: string,
  at: Date,
  from: TransactionStatus,
): Promise<{ paymentId: string; key: string; startedAt: Date }[]> {
  const rows = await db
    .update(payments)
    .set({
      bookingKey: sql`coalesce(${payments.bookingKey}, ${key})`,
      bookingStartedAt: sql`coalesce(${payments.bookingStartedAt}, ${at})`,
    })
    .where(and(inArray(payments.paymentId, [...paymentIds]), eq(payments.status, from)))
    .returning({
      paymentId: payments.paymentId,
      key: payments.bookingKey,
      startedAt: payments.bookingStartedAt,
    });
  return rows.map((row) => ({ paymentId: row.paymentId, key: row.key!, startedAt: row.startedAt! }));
}

/** One payment's mark (markBooking), as the statement that marked it answers it. */
interface OneMark {
  readonly paymentId: string;
  readonly key: string;
  readonly at: Date;
  readonly from: TransactionStatus;
}

/**
 * Concurrent executions' marks in one statement and one commit (a payment never twice in one: the
 * later mark waits for the next statement, and keeps the earlier mark as markBooking does).
 */
const oneMarks = joinedStatement('mark_bookings', markBookings, { key: (mark) => mark.paymentId });

async function markBookings(
  db: StoreDb,
  marks: readonly OneMark[],
): Promise<({ key: string; startedAt: Date } | undefined)[]> {
  const rows = await runStatement<{ paymentId: string; key: string; startedAt: Date }>(
    db,
    'mark_bookings',
    `UPDATE payments p
        SET booking_key = coalesce(p.booking_key, w.booking_key),
            booking_started_at = coalesce(p.booking_started_at, w.started_at)
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[]) AS w (payment_id, booking_key, started_at, from_status)
      WHERE p.payment_id = w.payment_id AND p.status = w.from_status
      RETURNING p.payment_id AS "paymentId", p.booking_key AS key, p.booking_started_at AS "startedAt"`,
    [
      marks.map((mark) => mark.paymentId),
      marks.map((mark) => mark.key),
      marks.map((mark) => mark.at.toISOString()),
      marks.map((mark) => mark.from),
    ],
  );
  const marked = new Map(rows.map((row) => [row.paymentId, { key: row.key, startedAt: row.startedAt }]));
  return marks.map((mark) => marked.get(mark.paymentId));
}

/**
 * markBooking for one payment, outside a transaction: joined with concurrent executions' marks in one
 * statement (see coalescer.ts). Answers the payment's mark, or undefined when it is no longer in `from`.
 */
export function markOneBooking(
  db: StoreDb,
  paymentId: string,
  key: string,
  at: Date,
  from: TransactionStatus,
): Promise<{ key: string; startedAt: Date } | undefined> {
  return oneMarks(db, { paymentId, key, at, from });
}

/**
 * The keys of booking orders asked before `startedBefore` and never answered (the process asking
 * died, or the answer was lost), oldest first.
 */
export async function unansweredBookings(trx: Db, startedBefore: Date, limit: number): Promise<string[]> {
  const rows = await trx
    .selectDistinct({ key: payments.bookingKey, startedAt: payments.bookingStartedAt })
    .from(payments)
    .where(and(isNotNull(payments.bookingKey), lt(payments.bookingStartedAt, startedBefore)))
    .orderBy(asc(payments.bookingStartedAt))
    .limit(limit);
  return rows.map((row) => row.key!);
}

/** The payments waiting for the answer to the order `key`, locked until the transaction ends. */
export async function lockPaymentsOfBooking(trx: Db, key: string): Promise<Payment[]> {
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.bookingKey, key))
    .orderBy(asc(payments.paymentId))
    .for('update');
  return rows.map((row) => toPayment(row));
}

/**
 * Moves a locked payment along the state machine (domain/payment.ts TRANSITIONS): RJCT with its
 * reason; any move ends a booking under way. Throws on a move the table does not have; answers false
 * when the payment was no longer in `from`.
 */
export async function moveStatus(
  trx: Db,
  paymentId: string,
  from: TransactionStatus,
  to: TransactionStatus,
  at: Date,
  rejection?: { readonly reasonCode: string; readonly reason: string },
): Promise<boolean> {
  if (!canMove(from, to)) throw new Error(`payment ${paymentId} cannot move from ${from} to ${to}`);
  if ((to === 'RJCT') !== (rejection !== undefined))
    throw new Error('a rejection, and only it, has a reason');
  const rows = await trx
    .update(payments)
    .set({
      status: to,
      executedAt: at,
      reasonCode: rejection?.reasonCode ?? null,
      reason: rejection?.reason ?? null,
      bookingKey: null,
      bookingStartedAt: null,
    })
    .where(and(eq(payments.paymentId, paymentId), eq(payments.status, from)))
    .returning({ paymentId: payments.paymentId });
  return rows.length === 1;
}

/** A future-dated payment waiting for its date (ACCP): a pending line of its debtor account's statement. */
export interface ScheduledDebit {
  readonly amountMinor: number;
  readonly currency: string;
  readonly requestedExecutionDate: string;
  readonly createdAt: Date;
  readonly creditorName: string | null;
  readonly remittance: string | null;
}

const scheduledDebits = batchedRead<{ accountId: string; from: string; to: string }, ScheduledDebit>(
  'scheduled_debits',
  `SELECT w.item::int AS item, p.amount_minor::float8 AS "amountMinor", p.currency,
          p.requested_execution_date::text AS "requestedExecutionDate", p.created_at AS "createdAt",
          p.creditor_name AS "creditorName", p.instruction->>'remittance' AS remittance
     FROM unnest($1::text[], $2::date[], $3::date[]) WITH ORDINALITY AS w (account, first_day, last_day, item)
     JOIN payments p ON p.debtor_account_id = w.account AND p.status = 'ACCP'
                    AND p.requested_execution_date BETWEEN w.first_day AND w.last_day
    ORDER BY w.item, p.requested_execution_date DESC, p.created_at DESC`,
  (reads) => [
    reads.map((read) => read.accountId),
    reads.map((read) => read.from),
    reads.map((read) => read.to),
  ],
);

/**
 * An account's payments waiting for a date from `from` to `to` (inclusive), latest first (every
 * transactions read: joined with concurrent reads).
 */
export function listScheduledDebits(
  db: StoreDb,
  accountId: string,
  range: { from: string; to: string },
): Promise<ScheduledDebit[]> {
  return scheduledDebits(db, { accountId, ...range });
}

/** The columns of a payment row as `toPayment` takes them, for statements written out in SQL. */
const PAYMENT_FIELDS = `payment_id AS "paymentId", client_id AS "clientId", product, country,
       customer_type AS "customerType", psu_id AS "psuId", corporate_id AS "corporateId",
       debtor_account_id AS "debtorAccountId", amount_minor::float8 AS "amountMinor", currency,
       creditor_name AS "creditorName", creditor_account AS "creditorAccount",
       requested_execution_date::text AS "requestedExecutionDate", status, created_at AS "createdAt",
       executed_at AS "executedAt", basket_id AS "basketId", tpp_payment_reference AS "tppPaymentReference",
       debtor_currency AS "debtorCurrency", reason_code AS "reasonCode", reason,
       instruction->>'remittance' AS remittance, booking_key AS "bookingKey",
       booking_started_at AS "bookingStartedAt"`;

const paymentsToExecute = batchedRead<
  { paymentId: string; key: RequestKey },
  Partial<Row> & { answered: boolean }
>(
  'payments_to_execute',
  `SELECT w.item::int AS item, p.*,
          EXISTS (SELECT 1 FROM idempotency_keys k
                   WHERE k.client_id = w.client_id AND k.request_id = w.request_id) AS answered
     FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS w (payment_id, client_id, request_id, item)
     LEFT JOIN LATERAL (SELECT ${PAYMENT_FIELDS} FROM payments WHERE payment_id = w.payment_id) AS p ON true`,
  (reads) => [
    reads.map((read) => read.paymentId),
    reads.map((read) => read.key.clientId),
    reads.map((read) => read.key.requestId),
  ],
);

/**
 * A payment to execute, and whether the app has an answer recorded under the request id, in one
 * statement joined with concurrent executions' (an execution's first read).
 */
export async function findPaymentToExecute(
  db: StoreDb,
  paymentId: string,
  key: RequestKey,
): Promise<{ payment: Payment | undefined; answered: boolean }> {
  const [row] = await paymentsToExecute(db, { paymentId, key });
  return {
    payment: row?.paymentId == null ? undefined : toPayment(row as Row),
    answered: row?.answered === true,
  };
}

/** A move of a payment whose booking `bookingKey` was answered. */
export interface BookedMove {
  readonly paymentId: string;
  readonly bookingKey: string;
  readonly from: TransactionStatus;
  readonly to: TransactionStatus;
  readonly at: Date;
  readonly rejection?: { readonly reasonCode: string; readonly reason: string } | undefined;
}

interface BookedAnswer {
  readonly move: BookedMove;
  readonly answer: RecordedAnswer;
}

/**
 * Concurrent executions' finishes in one statement and one commit: a payment never twice in one (a
 * concurrent finish of the same payment waits for the next statement, and finds it moved).
 */
const bookedMoves = joinedStatement('move_booked_answering', moveBookedAnsweringAll, {
  key: ({ move }) => move.paymentId,
});

/**
 * Moves a payment still waiting for the answer to its booking along the state machine (as moveStatus)
 * and records the answer to the request that executed it, in one statement (atomic without a
 * transaction) joined with concurrent executions' (see coalescer.ts): the answer only when the payment
 * moved. Answers whether it moved, and whether the answer was recorded (false: the request id was
 * taken meanwhile; the move stands, as the bank's outcome must be recorded whatever the answer).
 */
export function moveBookedAnswering(
  db: StoreDb,
  move: BookedMove,
  answer: RecordedAnswer,
): Promise<{ moved: boolean; answered: boolean }> {
  if (!canMove(move.from, move.to))
    throw new Error(`payment ${move.paymentId} cannot move from ${move.from} to ${move.to}`);
  if ((move.to === 'RJCT') !== (move.rejection !== undefined))
    throw new Error('a rejection, and only it, has a reason');
  return bookedMoves(db, { move, answer });
}

/**
 * The moves and their answers. Of two moved payments answered under one request id, only the first
 * (by payment id) claims it: the other's answer counts as taken, as it would in a statement of its own.
 */
async function moveBookedAnsweringAll(
  db: StoreDb,
  items: readonly BookedAnswer[],
): Promise<{ moved: boolean; answered: boolean }[]> {
  const rows = await runStatement<{ paymentId: string; moved: boolean; answered: boolean }>(
    db,
    'move_booked_answering',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("paymentId" text, "bookingKey" text, "from" text, "to" text, at timestamptz,
              "reasonCode" text, reason text, "clientId" text, "requestId" text, fingerprint text,
              "statusCode" integer, body jsonb)
     ),
     moved AS (
       UPDATE payments p
          SET status = i."to", executed_at = i.at, reason_code = i."reasonCode", reason = i.reason,
              booking_key = NULL, booking_started_at = NULL
         FROM input i
        -- The ids as an array too: the planner takes the input for 100 rows (jsonb_to_recordset's
        -- estimate) and would join it with a scan of every payment; by the array, it reads the key.
        WHERE p.payment_id = ANY (ARRAY(SELECT "paymentId" FROM input))
          AND p.payment_id = i."paymentId" AND p.booking_key = i."bookingKey" AND p.status = i."from"
        RETURNING p.payment_id
     ),
     answering AS (
       SELECT DISTINCT ON (i."clientId", i."requestId") i.*
         FROM input i JOIN moved m ON m.payment_id = i."paymentId"
        ORDER BY i."clientId", i."requestId", i."paymentId"
     ),
     claim AS (
       INSERT INTO idempotency_keys (client_id, request_id, fingerprint, status_code, body)
       SELECT "clientId", "requestId", fingerprint, "statusCode", body FROM answering
       ON CONFLICT DO NOTHING
       RETURNING client_id, request_id
     )
     SELECT i."paymentId",
            EXISTS (SELECT 1 FROM moved m WHERE m.payment_id = i."paymentId") AS moved,
            EXISTS (SELECT 1 FROM claim c JOIN answering a
                             ON a."clientId" = c.client_id AND a."requestId" = c.request_id
                     WHERE a."paymentId" = i."paymentId") AS answered
       FROM input i`,
    [
      JSON.stringify(
        items.map(({ move, answer }) => ({
          paymentId: move.paymentId,
          bookingKey: move.bookingKey,
          from: move.from,
          to: move.to,
          at: move.at.toISOString(),
          reasonCode: move.rejection?.reasonCode ?? null,
          reason: move.rejection?.reason ?? null,
          clientId: answer.key.clientId,
          requestId: answer.key.requestId,
          fingerprint: answer.fingerprint,
          statusCode: answer.statusCode,
          body: answer.body,
        })),
      ),
    ],
  );
  const outcomes = new Map(rows.map((row) => [row.paymentId, row]));
  return items.map(({ move }) => {
    const row = outcomes.get(move.paymentId)!;
    return { moved: row.moved, answered: row.answered };
  });
}
