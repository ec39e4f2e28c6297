// The baselines, raw node:http servers doing the work a request needs without the gateway:
//
// raw(work): parses the JSON (or form) body, validates it about as the contract asks (required fields,
// types, the amount's format, the TPP headers, a known token), keeps the payments it initiated in a Map,
// and builds its answer (new ids, links, the account list, the transactions from dateFrom on, a funds
// check against a balance); never fixed bytes. Every answer echoes TPP-Request-ID and TPP-Transaction-ID
// (API-NOTES: the real service does, and so does the gateway) and says its length, as a server built for
// throughput would (chunked framing costs the client more to read).
//
// raw pg: an execution as one `pg` transaction doing the same booking as the gateway's (the payment's
// status, the debtor's balance, the booking and its two ledger entries), on tables of its own.
//
// raw(work) storing its initiations (rawPgInitiations): raw(work) that also writes each payment with its
// answer under the app's request id on a table of its own before it answers, concurrent requests in one
// multi-row INSERT and one commit: what Node and PostgreSQL allow for an initiation that is kept (issue
// 18's title), next to the gateway's, which keeps the same in the same database.
//
// raw(work) storing its flows (rawPgFlows): raw(work) that keeps every step of the five-step flow in
// PostgreSQL as the gateway does, instead of its Maps: the payment (as above), the authorization code
// and the token (their SHA-256 digests, single use, with an expiry), the execution as raw pg's booking
// in one statement (its checks and writes as data-modifying CTEs: one round trip), the status read from
// the payment's row. Concurrent initiations, codes, exchanges and status reads share a statement; an
// execution is a statement and a transaction of its own. What Node and PostgreSQL allow for a flow
// that is kept, next to the gateway's.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import pg from 'pg';
import { forEachEchoedId } from '../src/http/tpp-headers.ts';
import { BATCH_LIMITS, Coalescer } from '../src/store/coalescer.ts';
import { listenRaw, type Target } from './common.ts';

export interface RawAccount {
  readonly resourceId: string;
  readonly iban: string;
  readonly bban: string;
  readonly currency: string;
  readonly name: string;
  readonly ownerName: string;
  readonly balanceMinor: number;
}

export interface RawBooking {
  readonly transactionId: string;
  readonly bookingDate: string;
  readonly amountMinor: number;
  readonly counterpart: string;
  readonly remittance: string;
}

/** What raw(work) knows: tokens (app and PSU), each PSU's accounts, their bookings. */
export interface RawData {
  /** Token to the PSU it reads for ('' for an app's client-credentials token). */
  readonly tokens: Map<string, string>;
  readonly accountsOf: Map<string, readonly RawAccount[]>;
  readonly byIban: Map<string, RawAccount>;
  readonly history: Map<string, readonly RawBooking[]>;
  /** Payments by id: their status (initiated here, or awaiting authorization at the gateway too). */
  readonly payments: Map<string, string>;
}

export function emptyRawData(): RawData {
  return {
    tokens: new Map(),
    accountsOf: new Map(),
    byIban: new Map(),
    history: new Map(),
    payments: new Map(),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AMOUNT = /^\d{1,14}(\.\d{1,2})?$/;
const CURRENCY = /^[A-Z]{3}$/;
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...JSON_TYPE, 'content-length': Buffer.byteLength(text) }).end(text);
}

/** The TPP's ids every answer echoes (API-NOTES), by the gateway's own rule (well-formed ones only). */
function echo(request: IncomingMessage, response: ServerResponse): void {
  forEachEchoedId(request.headers, (name, value) => response.setHeader(name, value));
}

function fail(response: ServerResponse, status: number, code: string, text: string): void {
  send(response, status, {
    httpCode: String(status),
    httpMessage: code,
    moreInformation: text,
    tppMessages: [{ category: 'ERROR', code, text }],
  });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The account reference's problem, or undefined. */
function accountProblem(value: unknown, name: string): string | undefined {
  if (!isObject(value)) return `${name} is required`;
  if (typeof value.value !== 'string' || !/^[0-9A-Z]{5,34}$/.test(value.value))
    return `${name}.value must be an account number`;
  if (value.accountType !== undefined && value.accountType !== 'BBAN' && value.accountType !== 'IBAN')
    return `${name}.accountType must be BBAN or IBAN`;
  if (value.currency !== undefined && (typeof value.currency !== 'string' || !CURRENCY.test(value.currency)))
    return `${name}.currency must be a currency code`;
  return undefined;
}

function amountProblem(value: unknown, name: string): string | undefined {
  if (!isObject(value)) return `${name} is required`;
  if (typeof value.currency !== 'string' || !CURRENCY.test(value.currency))
    return `${name}.currency must be a currency code`;
  const amount = typeof value.amount === 'number' ? String(value.amount) : value.amount;
  if (typeof amount !== 'string' || !AMOUNT.test(amount) || Number(amount) <= 0)
    return `${name}.amount must be a positive amount with at most two decimals`;
  return undefined;
}

/** A payment body's problem, or undefined. */
export function paymentProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'the body must be a JSON object';
  const remittance = body.remittanceInformationUnstructured;
  return (
    accountProblem(body.debtorAccount, 'debtorAccount') ??
    accountProblem(body.creditorAccount, 'creditorAccount') ??
    amountProblem(body.instructedAmount, 'instructedAmount') ??
    (remittance !== undefined && (typeof remittance !== 'string' || remittance.length > 140)
      ? 'remittanceInformationUnstructured must be text of at most 140 characters'
      : undefined)
  );
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString()));
    request.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const token = () => randomBytes(32).toString('base64url');

/** A payment raw(work) initiated, with its answer, to keep before answering (rawPgInitiations). */
export interface RawInitiation {
  readonly clientId: string;
  readonly requestId: string;
  readonly paymentId: string;
  readonly body: unknown;
  readonly answer: unknown;
}

/** The flow's steps kept in PostgreSQL (rawPgFlows) instead of raw(work)'s Maps. */
export interface RawFlows {
  /** A new single-use code for the app and scope, or undefined when the scope names no payment of the app awaiting authorization. */
  issueCode(clientId: string, scope: string): Promise<string | undefined>;
  /** The code's token (the code used up), or undefined when the code is unknown, used, expired or another app's. */
  exchange(code: string, clientId: string): Promise<string | undefined>;
  /**
   * Executes the payment with the app's PSU token of its scope: its new status ('ACCC', or 'RJCT' when the
   * debtor's balance does not cover it), 'not waiting' when it awaits no execution, 'token' when the
   * token is not valid for it.
   */
  execute(
    paymentId: string,
    token: string,
    clientId: string,
  ): Promise<'ACCC' | 'RJCT' | 'not waiting' | 'token'>;
  /** The payment's status, or undefined when the app has no such payment. */
  status(paymentId: string, clientId: string): Promise<string | undefined>;
}

/**
 * The raw(work) server over `data`; with `keep`, each initiation is kept before it is answered; with
 * `flows`, codes, tokens, executions and statuses are PostgreSQL's (rawPgFlows) instead of the Maps'.
 */
export async function rawWorkServer(
  data: RawData,
  keep?: (initiation: RawInitiation) => Promise<void>,
  flows?: RawFlows,
): Promise<Target> {
  /** The TPP headers every call needs and its bearer token ('' without one); undefined (answered 400) when they are wrong. */
  const tppBearer = (request: IncomingMessage, response: ServerResponse): string | undefined => {
    const authorization = request.headers.authorization;
    const clientId = request.headers['x-gateway-client-id'];
    if (typeof clientId !== 'string' || clientId === '') {
      fail(response, 400, 'FORMAT_ERROR', 'X-Gateway-Client-Id is required');
      return undefined;
    }
    const requestId = request.headers['tpp-request-id'];
    if (typeof requestId !== 'string' || !UUID.test(requestId)) {
      fail(response, 400, 'FORMAT_ERROR', 'TPP-Request-ID must be a UUID');
      return undefined;
    }
    return authorization?.startsWith('Bearer ') === true ? authorization.slice(7) : '';
  };
  const authorizedPsu = (request: IncomingMessage, response: ServerResponse): string | undefined => {
    const bearer = tppBearer(request, response);
    if (bearer === undefined) return undefined;
    const psu = data.tokens.get(bearer);
    if (psu === undefined) fail(response, 401, 'TOKEN_INVALID', 'The token is not valid');
    return psu;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const text = await readBody(request);
    echo(request, response);
    const url = new URL(request.url ?? '/', 'http://raw');
    const path = url.pathname;
    const origin = `http://${request.headers.host}`;
    if (path === '/oauth2/authorize/1.0') {
      const query = url.searchParams;
      const redirect = query.get('redirect_uri');
      if (query.get('client_id') === null || redirect === null || query.get('scope') === null) {
        fail(response, 400, 'FORMAT_ERROR', 'client_id, scope and redirect_uri are required');
        return;
      }
      const location = new URL(redirect);
      const code =
        flows === undefined ? token() : await flows.issueCode(query.get('client_id')!, query.get('scope')!);
      if (code === undefined) location.searchParams.set('error', 'invalid_scope');
      else location.searchParams.set('code', code);
      location.searchParams.set('state', query.get('state') ?? '');
      response.writeHead(302, { location: location.href }).end();
      return;
    }
    if (path === '/oauth2/token/1.0') {
      const form = new URLSearchParams(text);
      if (form.get('grant_type') === null || form.get('client_id') === null) {
        send(response, 400, { error: 'invalid_request', error_description: 'grant_type and client_id' });
        return;
      }
      const code = form.get('code');
      const issued = flows === undefined ? token() : await flows.exchange(code ?? '', form.get('client_id')!);
      if (issued === undefined) {
        send(response, 400, { error: 'invalid_grant', error_description: 'the code is not valid' });
        return;
      }
      if (flows === undefined) data.tokens.set(issued, '');
      send(response, 200, {
        access_token: issued,
        token_type: 'Bearer',
        expires_in: 900,
        scope: form.get('scope'),
      });
      return;
    }
    const parts = path.split('/');
    if (flows !== undefined && request.method === 'PUT' && parts.includes('payments')) {
      // The headers as for every call; the PSU token is checked in the execution's statement.
      const bearer = tppBearer(request, response);
      if (bearer === undefined) return;
      const clientId = request.headers['x-gateway-client-id'] as string;
      const paymentId = parts.at(-1)!;
      const outcome = UUID.test(paymentId) ? await flows.execute(paymentId, bearer, clientId) : 'not waiting';
      if (outcome === 'token') fail(response, 401, 'TOKEN_INVALID', 'The token is not valid');
      else if (outcome === 'not waiting')
        fail(response, 400, 'PAYMENT_FAILED', 'The payment is not awaiting execution');
      else send(response, 200, { paymentId, transactionStatus: outcome });
      return;
    }
    const psu = authorizedPsu(request, response);
    if (psu === undefined) return;
    if (request.method === 'POST' && path.endsWith('/signing-basket')) {
      const body = parseJson(text);
      const payments = isObject(body) ? body.payments : undefined;
      if (!Array.isArray(payments) || payments.length === 0 || payments.length > 100) {
        fail(response, 400, 'FORMAT_ERROR', 'payments must be a list of 1 to 100 payments');
        return;
      }
      const answered = [];
      for (const [index, payment] of payments.entries()) {
        const problem =
          paymentProblem(payment) ??
          (typeof (payment as Record<string, unknown>).paymentProduct === 'string'
            ? undefined
            : 'paymentProduct is required');
        if (problem !== undefined) {
          fail(response, 400, 'FORMAT_ERROR', `payments[${index}]: ${problem}`);
          return;
        }
        const paymentId = randomUUID();
        data.payments.set(paymentId, 'RCVD');
        answered.push({
          paymentId,
          tppPaymentReference: (payment as Record<string, unknown>).tppPaymentReference,
        });
      }
      send(response, 200, { payments: answered, signingBaskedId: randomUUID() });
      return;
    }
    if (request.method === 'POST' && parts.includes('single')) {
      const body = parseJson(text);
      const problem = paymentProblem(body);
      if (problem !== undefined) {
        fail(response, 400, 'FORMAT_ERROR', problem);
        return;
      }
      const paymentId = randomUUID();
      data.payments.set(paymentId, 'ACTC');
      const product = parts.at(-1)!;
      const authorize = new URL('/oauth2/authorize/1.0', origin);
      authorize.search = new URLSearchParams({ response_type: 'code', scope: `PIS:${paymentId}` }).toString();
      const answer = {
        paymentId,
        transactionStatus: 'ACTC',
        scaMethods: [
          {
            authenticationType: 'OAUTH',
            name: 'redirect',
            _links: { authorization: { href: authorize.href } },
          },
        ],
        _links: {
          self: { href: `${origin}/psd2/v1/payments/${product}/${paymentId}` },
          status: { href: `${origin}/psd2/v1/payments/${product}/${paymentId}/status` },
        },
      };
      if (keep !== undefined) {
        const clientId = request.headers['x-gateway-client-id'] as string;
        const requestId = request.headers['tpp-request-id'] as string;
        await keep({ clientId, requestId, paymentId, body, answer });
      }
      send(response, 200, answer);
      return;
    }
    if (request.method === 'GET' && path.endsWith('/status') && parts.includes('payments')) {
      const paymentId = parts.at(-2)!;
      const status = !UUID.test(paymentId)
        ? undefined
        : flows === undefined
          ? data.payments.get(paymentId)
          : await flows.status(paymentId, request.headers['x-gateway-client-id'] as string);
      if (status === undefined) fail(response, 404, 'RESOURCE_UNKNOWN', 'No such payment');
      else send(response, 200, { paymentId, transactionStatus: status });
      return;
    }
    if (request.method === 'PUT' && parts.includes('payments')) {
      const paymentId = parts.at(-1)!;
      if (data.payments.get(paymentId) !== 'ACTC') {
        fail(response, 400, 'PAYMENT_FAILED', 'The payment is not awaiting execution');
        return;
      }
      data.payments.set(paymentId, 'ACCC');
      send(response, 200, { paymentId, transactionStatus: 'ACCC' });
      return;
    }
    if (request.method === 'POST' && path === '/psd2/v1/funds-confirmations') {
      const body = parseJson(text);
      const account = isObject(body) && isObject(body.account) ? body.account.iban : undefined;
      const problem =
        typeof account !== 'string'
          ? 'account.iban is required'
          : amountProblem(isObject(body) ? body.instructedAmount : undefined, 'instructedAmount');
      if (problem !== undefined) {
        fail(response, 400, 'FORMAT_ERROR', problem);
        return;
      }
      const found = data.byIban.get(account as string);
      if (found === undefined) {
        fail(response, 400, 'RESOURCE_UNKNOWN', 'No such account');
        return;
      }
      const amount = Math.round(
        Number(((body as Record<string, Record<string, unknown>>).instructedAmount!.amount as string) ?? 0) *
          100,
      );
      send(response, 200, { fundsAvailable: found.balanceMinor >= amount });
      return;
    }
    if (request.method === 'GET' && path === '/psd2/v1/accounts') {
      const accounts = data.accountsOf.get(psu) ?? [];
      const money = (minor: number) => ({ content: (minor / 100).toFixed(2), currency: 'SEK' });
      send(response, 200, {
        accounts: accounts.map((account) => ({
          accountId: account.resourceId,
          currency: account.currency,
          accountType: 'CACC',
          name: account.name,
          ownerName: account.ownerName,
          _links: { transactions: { href: `${origin}/psd2/v1/accounts/${account.resourceId}/transactions` } },
          iban: account.iban,
          bban: account.bban,
          clearingNumber: account.bban.slice(0, 4),
          bic: 'HANDSESS',
          balances: [
            { amount: money(account.balanceMinor), balanceType: 'booked' },
            { amount: money(account.balanceMinor), balanceType: 'available' },
          ],
        })),
      });
      return;
    }
    if (request.method === 'GET' && path.endsWith('/transactions')) {
      const accountId = parts.at(-2)!;
      const dateFrom = url.searchParams.get('dateFrom');
      const owned = (data.accountsOf.get(psu) ?? []).find((account) => account.resourceId === accountId);
      if (owned === undefined || dateFrom === null || !/^\d{4}-\d{2}-\d{2}$/.test(dateFrom)) {
        fail(response, 400, 'FORMAT_ERROR', 'an account of the consent and dateFrom are required');
        return;
      }
      const transactions = [];
      // Newest first, as the gateway answers.
      for (const booking of data.history.get(accountId) ?? []) {
        if (booking.bookingDate < dateFrom) continue;
        const debit = booking.amountMinor < 0;
        transactions.push({
          amount: { content: (Math.abs(booking.amountMinor) / 100).toFixed(2), currency: owned.currency },
          transactionDate: booking.bookingDate,
          valueDate: booking.bookingDate,
          creditDebit: debit ? 'DEBITED' : 'CREDITED',
          status: 'BOOKED',
          bookingDate: booking.bookingDate,
          ledgerDate: booking.bookingDate,
          creditorName: debit ? booking.counterpart : owned.ownerName,
          debtorName: debit ? owned.ownerName : booking.counterpart,
          remittanceInformation: booking.remittance,
        });
      }
      transactions.sort((a, b) =>
        a.bookingDate < b.bookingDate ? 1 : a.bookingDate > b.bookingDate ? -1 : 0,
      );
      send(response, 200, { accountId, transactions });
      return;
    }
    fail(response, 404, 'RESOURCE_UNKNOWN', `${request.method} ${path}`);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => fail(response, 500, 'INTERNAL', String(error)));
  });
  return listenRaw(server);
}

const LEDGER_TABLES = `
  CREATE TABLE bookings (booking_id text PRIMARY KEY, payment_id text NOT NULL, booked_on date NOT NULL,
                         created_at timestamptz NOT NULL);
  CREATE TABLE ledger_entries (entry_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                               booking_id text NOT NULL, ledger_account text NOT NULL,
                               currency text NOT NULL, amount_minor bigint NOT NULL);`;

/**
 * A pool of 20 (the gateway's in the bench) on a schema of its own with `tables`; with `accountIds`, an
 * accounts table (account_id, balance_minor) holding them. Its close drops the schema.
 */
async function rawSchema(
  databaseUrl: string,
  tables: string,
  accountIds?: readonly string[],
): Promise<{ pool: pg.Pool; close: () => Promise<void> }> {
  const schema = `bench_raw_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, options: `-c search_path=${schema}` });
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(tables);
  if (accountIds !== undefined) {
    await pool.query('CREATE TABLE accounts (account_id text PRIMARY KEY, balance_minor bigint NOT NULL)');
    await pool.query(
      'INSERT INTO accounts SELECT id, 1250000000 FROM unnest($1::text[]) AS id ON CONFLICT DO NOTHING',
      [[...accountIds]],
    );
  }
  return {
    pool,
    async close() {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  };
}

export interface RawPg extends Target {
  /** Payments for the next round: these ids, awaiting execution, from these debtors to these creditors. */
  prepare(payments: readonly { paymentId: string; debtor: string; creditor: string }[]): Promise<void>;
}

/**
 * raw pg on `databaseUrl`, in a schema of its own: accounts (id, balance), payments (id, debtor,
 * creditor, amount, status), bookings and ledger entries. An execution (PUT .../{paymentId}) is one
 * transaction: the payment from ACTC to ACCC (its row locked), the debtor's balance down if it covers
 * the amount (its row locked), the creditor's up, the booking, its two entries; 7 statements in all.
 */
export async function rawPgServer(databaseUrl: string, accountIds: readonly string[]): Promise<RawPg> {
  const { pool, close } = await rawSchema(
    databaseUrl,
    `CREATE TABLE payments (payment_id text PRIMARY KEY, debtor text NOT NULL, creditor text NOT NULL,
                            amount_minor bigint NOT NULL, status text NOT NULL);
     ${LEDGER_TABLES}`,
    accountIds,
  );
  const execute = async (paymentId: string): Promise<string | undefined> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const payment = await client.query<{ debtor: string; creditor: string; amount_minor: string }>({
        name: 'raw_payment',
        text: "UPDATE payments SET status = 'ACCC' WHERE payment_id = $1 AND status = 'ACTC' RETURNING debtor, creditor, amount_minor",
        values: [paymentId],
      });
      const row = payment.rows[0];
      if (row === undefined) {
        await client.query('ROLLBACK');
        return undefined;
      }
      const debited = await client.query({
        name: 'raw_debit',
        text: 'UPDATE accounts SET balance_minor = balance_minor - $2 WHERE account_id = $1 AND balance_minor >= $2',
        values: [row.debtor, row.amount_minor],
      });
      if (debited.rowCount !== 1) {
        await client.query('ROLLBACK');
        return 'RJCT';
      }
      await client.query({
        name: 'raw_credit',
        text: 'UPDATE accounts SET balance_minor = balance_minor + $2 WHERE account_id = $1',
        values: [row.creditor, row.amount_minor],
      });
      const bookingId = randomUUID();
      await client.query({
        name: 'raw_booking',
        text: 'INSERT INTO bookings VALUES ($1, $2, current_date, now())',
        values: [bookingId, paymentId],
      });
      await client.query({
        name: 'raw_entries',
        text: "INSERT INTO ledger_entries (booking_id, ledger_account, currency, amount_minor) VALUES ($1, $2, 'SEK', -$4::bigint), ($1, $3, 'SEK', $4::bigint)",
        values: [bookingId, row.debtor, row.creditor, row.amount_minor],
      });
      await client.query('COMMIT');
      return 'ACCC';
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
  const server: Server = createServer((request, response) => {
    request.resume();
    echo(request, response);
    request.on('end', () => {
      const paymentId = (request.url ?? '').split('/').at(-1)!;
      if (request.method !== 'PUT' || !UUID.test(paymentId) || !request.headers.authorization) {
        fail(response, 400, 'FORMAT_ERROR', 'PUT .../{paymentId} with a token');
        return;
      }
      execute(paymentId).then(
        (status) =>
          status === undefined
            ? fail(response, 400, 'PAYMENT_FAILED', 'The payment is not awaiting execution')
            : send(response, 200, { paymentId, transactionStatus: status }),
        (error: unknown) => fail(response, 500, 'INTERNAL', String(error)),
      );
    });
  });
  const target = await listenRaw(server);
  return {
    ...target,
    clientId: 'raw pg',
    async prepare(payments) {
      await pool.query(
        `INSERT INTO payments SELECT p.id, p.debtor, p.creditor, 12550, 'ACTC'
           FROM unnest($1::text[], $2::text[], $3::text[]) AS p(id, debtor, creditor)`,
        [payments.map((p) => p.paymentId), payments.map((p) => p.debtor), payments.map((p) => p.creditor)],
      );
    },
    async close() {
      await target.close();
      await close();
    },
  };
}

/**
 * Where raw(work) keeps its initiations on PostgreSQL: a table of its own (a schema of its own), the
 * request id unique per app as the gateway's. Concurrent requests share one prepared multi-row INSERT
 * and one commit, two statements in flight (the gateway's own limits, src/store/coalescer.ts): what a
 * plain `pg` server built for throughput does. One INSERT per request, as a first version of this
 * baseline did, reached about half the rate on 2 cores (docs/decisions.md).
 */
export async function rawPgInitiations(
  databaseUrl: string,
): Promise<{ keep: (initiation: RawInitiation) => Promise<void>; close: () => Promise<void> }> {
  const { pool, close } = await rawSchema(
    databaseUrl,
    `CREATE TABLE payments (payment_id text PRIMARY KEY, client_id text NOT NULL, request_id text NOT NULL,
                            instruction jsonb NOT NULL, answer jsonb NOT NULL,
                            created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (client_id, request_id));`,
  );
  const inserts = new Coalescer<RawInitiation, undefined>(
    async (items) => {
      await pool.query({
        name: 'raw_initiations',
        text: `INSERT INTO payments (payment_id, client_id, request_id, instruction, answer)
               SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[])`,
        values: [
          items.map((item) => item.paymentId),
          items.map((item) => item.clientId),
          items.map((item) => item.requestId),
          items.map((item) => JSON.stringify(item.body)),
          items.map((item) => JSON.stringify(item.answer)),
        ],
      });
      return items.map(() => undefined);
    },
    { ...BATCH_LIMITS, key: (item) => `${item.clientId}\n${item.requestId}` },
  );
  return {
    keep: (initiation) => inserts.submit(initiation),
    close,
  };
}

const digest = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/**
 * Where raw(work) keeps its flows on PostgreSQL (a schema of its own): `accounts` names the account
 * numbers the payments debit and credit. Initiations, codes, exchanges and status reads each share a
 * statement and a commit between concurrent requests (the gateway's own limits, src/store/coalescer.ts);
 * an execution is raw pg's booking with the token checked first, in one statement.
 */
export async function rawPgFlows(
  databaseUrl: string,
  accounts: readonly string[],
): Promise<{
  keep: (initiation: RawInitiation) => Promise<void>;
  flows: RawFlows;
  close: () => Promise<void>;
}> {
  const { pool, close } = await rawSchema(
    databaseUrl,
    `CREATE TABLE payments (payment_id text PRIMARY KEY, client_id text NOT NULL, request_id text NOT NULL,
                            debtor text NOT NULL, creditor text NOT NULL, amount_minor bigint NOT NULL,
                            status text NOT NULL, answer jsonb NOT NULL,
                            created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (client_id, request_id));
     CREATE TABLE codes (code_hash text PRIMARY KEY, client_id text NOT NULL, scope text NOT NULL,
                         expires_at timestamptz NOT NULL, used boolean NOT NULL DEFAULT false);
     CREATE TABLE tokens (token_hash text PRIMARY KEY, client_id text NOT NULL, scope text NOT NULL,
                          expires_at timestamptz NOT NULL);
     ${LEDGER_TABLES}`,
    accounts,
  );
  const initiations = new Coalescer<RawInitiation, undefined>(
    async (items) => {
      const bodies = items.map((item) => item.body as Record<string, Record<string, string>>);
      await pool.query({
        name: 'raw_flow_initiations',
        text: `INSERT INTO payments (payment_id, client_id, request_id, debtor, creditor, amount_minor, status, answer)
               SELECT p, c, r, d, k, a, 'ACTC', x
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::jsonb[])
                   AS t (p, c, r, d, k, a, x)`,
        values: [
          items.map((item) => item.paymentId),
          items.map((item) => item.clientId),
          items.map((item) => item.requestId),
          bodies.map((body) => body.debtorAccount!.value),
          bodies.map((body) => body.creditorAccount!.value),
          bodies.map((body) => Math.round(Number(body.instructedAmount!.amount) * 100)),
          items.map((item) => JSON.stringify(item.answer)),
        ],
      });
      return items.map(() => undefined);
    },
    { ...BATCH_LIMITS, key: (item) => `${item.clientId}\n${item.requestId}` },
  );
  // A code only for a payment of the app awaiting authorization: checked by the INSERT itself.
  const codes = new Coalescer<{ hash: string; clientId: string; scope: string }, boolean>(async (items) => {
    const issued = await pool.query<{ code_hash: string }>({
      name: 'raw_flow_codes',
      text: `INSERT INTO codes (code_hash, client_id, scope, expires_at)
             SELECT h, c, s, now() + interval '5 minutes' FROM unnest($1::text[], $2::text[], $3::text[]) AS t (h, c, s)
               JOIN payments p ON p.payment_id = substr(s, 5) AND p.client_id = c AND p.status = 'ACTC'
              WHERE s LIKE 'PIS:%'
             RETURNING code_hash`,
      values: [
        items.map((item) => item.hash),
        items.map((item) => item.clientId),
        items.map((item) => item.scope),
      ],
    });
    const hashes = new Set(issued.rows.map((row) => row.code_hash));
    return items.map((item) => hashes.has(item.hash));
  }, BATCH_LIMITS);
  const exchanges = new Coalescer<{ code: string; token: string; clientId: string }, boolean>(
    async (items) => {
      const issued = await pool.query<{ token_hash: string }>({
        name: 'raw_flow_exchanges',
        text: `WITH used AS (
                 UPDATE codes c SET used = true
                   FROM unnest($1::text[], $2::text[], $3::text[]) AS w (code, token, client)
                  WHERE c.code_hash = w.code AND c.client_id = w.client AND NOT c.used AND c.expires_at > now()
                 RETURNING w.token, c.client_id, c.scope)
               INSERT INTO tokens (token_hash, client_id, scope, expires_at)
               SELECT token, client_id, scope, now() + interval '15 minutes' FROM used RETURNING token_hash`,
        values: [
          items.map((item) => item.code),
          items.map((item) => item.token),
          items.map((item) => item.clientId),
        ],
      });
      const tokens = new Set(issued.rows.map((row) => row.token_hash));
      return items.map((item) => tokens.has(item.token));
    },
    { ...BATCH_LIMITS, key: (item) => item.code },
  );
  const statuses = new Coalescer<{ paymentId: string; clientId: string }, string | undefined>(
    async (items) => {
      const found = await pool.query<{ payment_id: string; client_id: string; status: string }>({
        name: 'raw_flow_statuses',
        text: 'SELECT payment_id, client_id, status FROM payments WHERE payment_id = ANY ($1::text[])',
        values: [items.map((item) => item.paymentId)],
      });
      const byId = new Map(found.rows.map((row) => [row.payment_id, row]));
      return items.map((item) => {
        const row = byId.get(item.paymentId);
        return row?.client_id === item.clientId ? row.status : undefined;
      });
    },
    BATCH_LIMITS,
  );
  // One statement and one round trip per execution (its own transaction): the app's token checked, the
  // payment locked, the debit only when the balance covers it, then the credit, the payment's move, the
  // booking and its two entries, each only when the step before it happened.
  const execute: RawFlows['execute'] = async (paymentId, token, clientId) => {
    const result = await pool.query<{ granted: boolean; waiting: boolean; debited: boolean }>({
      name: 'raw_flow_execute',
      text: `WITH granted AS (
               SELECT 1 FROM tokens
                WHERE token_hash = $1 AND scope = 'PIS:' || $2 AND client_id = $4 AND expires_at > now()),
             waiting AS (
               SELECT payment_id, debtor, creditor, amount_minor FROM payments
                WHERE payment_id = $2 AND status = 'ACTC' AND EXISTS (SELECT 1 FROM granted) FOR UPDATE),
             debited AS (
               UPDATE accounts a SET balance_minor = a.balance_minor - w.amount_minor FROM waiting w
                WHERE a.account_id = w.debtor AND a.balance_minor >= w.amount_minor
               RETURNING w.payment_id, w.debtor, w.creditor, w.amount_minor),
             credited AS (
               UPDATE accounts a SET balance_minor = a.balance_minor + d.amount_minor FROM debited d
                WHERE a.account_id = d.creditor RETURNING 1),
             moved AS (
               UPDATE payments p SET status = CASE WHEN EXISTS (SELECT 1 FROM debited) THEN 'ACCC' ELSE 'RJCT' END
                 FROM waiting w WHERE p.payment_id = w.payment_id RETURNING 1),
             booked AS (
               INSERT INTO bookings SELECT $3, payment_id, current_date, now() FROM debited RETURNING 1),
             entries AS (
               INSERT INTO ledger_entries (booking_id, ledger_account, currency, amount_minor)
               SELECT $3, e.account, 'SEK', e.amount FROM debited d,
                      LATERAL (VALUES (d.debtor, -d.amount_minor), (d.creditor, d.amount_minor)) AS e (account, amount)
               RETURNING 1)
           SELECT EXISTS (SELECT 1 FROM granted) AS granted, EXISTS (SELECT 1 FROM waiting) AS waiting,
                  EXISTS (SELECT 1 FROM debited) AS debited`,
      values: [digest(token), paymentId, randomUUID(), clientId],
    });
    const { granted, waiting, debited } = result.rows[0]!;
    return !granted ? 'token' : !waiting ? 'not waiting' : debited ? 'ACCC' : 'RJCT';
  };
  return {
    keep: (initiation) => initiations.submit(initiation),
    flows: {
      async issueCode(clientId, scope) {
        const code = token();
        return (await codes.submit({ hash: digest(code), clientId, scope })) ? code : undefined;
      },
      async exchange(code, clientId) {
        const issued = token();
        return (await exchanges.submit({ code: digest(code), token: digest(issued), clientId }))
          ? issued
          : undefined;
      },
      execute,
      status: (paymentId, clientId) => statuses.submit({ paymentId, clientId }),
    },
    close,
  };
}
