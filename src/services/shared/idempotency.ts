// Idempotent retries by the Idempotency-Key header (draft-ietf-httpapi-idempotency-key-header; API-NOTES
// "Headers"), scoped to the app, the operation and the key: the same key with the same request answers the
// first answer and does nothing twice; with another request 422; while the first is still in flight 409.
// Without the header nothing is recorded and the request is simply done (TPP-Request-ID is a correlation id
// only). A request that fails leaves no record: it may be retried under the same key.
import type { Config } from '../../config.ts';
import { apiError } from '../../domain/errors.ts';
import { fingerprint, newSecret } from '../../domain/secrets.ts';
import type { Db, StoreDb } from '../../store/database.ts';
import {
  claimKey,
  findKey,
  type KeyClaim,
  type KeyRecord,
  recordAnswer,
  releaseClaim,
} from '../../store/idempotency-repository.ts';
import type { ServiceContext } from './context.ts';

export interface Answer<T> {
  readonly statusCode: number;
  readonly body: T;
}

/** The state-changing operations a key is scoped to (with the app). */
export type KeyedOperation =
  | 'initiate'
  | 'basket'
  | 'execute'
  | 'cancel'
  | 'consent'
  | 'short-term-consent'
  | 'subscribe';

/** A state-changing request as its key sees it; without an Idempotency-Key nothing is recorded. */
export interface KeyedRequest {
  /** The app (onboarding: the TPP) whose key it is. */
  readonly clientId: string;
  readonly operation: KeyedOperation;
  readonly key: string | undefined;
  /** What a retry under the key must repeat (path, headers that matter, body); hashed only with a key. */
  readonly request: unknown;
}

/** A key this request holds while it works, with the fingerprint a retry must match. */
export type Claim = KeyClaim & { readonly fingerprint: string };

/**
 * How long a claim holds its key without an answer: a request in flight longer than this (a process that
 * died) no longer keeps a retry out. Longer than any request may take with these settings: the core
 * banking system's attempts (three, at most 2 s apart: DEFAULT_RETRY of the HTTP adapter) each up to
 * CORE_BANKING_TIMEOUT_MS, and a request's few statements each up to DB_STATEMENT_TIMEOUT_MS, with a
 * margin; never under two minutes.
 */
export function leaseMs(config: Pick<Config, 'coreBanking' | 'databaseTimeouts'>): number {
  const bank = config.coreBanking === undefined ? 0 : 3 * config.coreBanking.timeoutMs + 2 * 2_000;
  return Math.max(120_000, bank + 4 * config.databaseTimeouts.statementMs + 30_000);
}
/** How long an answer is kept under its key (the draft leaves it to the server: at least 24 hours). */
const KEY_KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * Runs `work` for the request: without a key at once, with nothing recorded; with a key, under its
 * claim (committed first, so that the same key from any process meanwhile answers 409), the work
 * recording its answer under the claim with itself (see answerOnce, storeOnce). A key already answered
 * answers that answer without running the work; a claim that fails gives the key back.
 */
export async function underKey<T>(
  context: ServiceContext,
  request: KeyedRequest,
  work: (claim: Claim | undefined) => Promise<Answer<T>>,
): Promise<Answer<T>> {
  if (request.key === undefined) return work(undefined);
  const claim: Claim = {
    clientId: request.clientId,
    operation: request.operation,
    key: request.key,
    token: newSecret(),
    fingerprint: fingerprint({ operation: request.operation, request: request.request }),
  };
  const now = context.clock();
  const times = {
    now,
    leaseUntil: new Date(now.getTime() + leaseMs(context.config)),
    keptSince: new Date(now.getTime() - KEY_KEPT_MS),
  };
  // A key given back between the claim and the read is free again: claimed on the next turn.
  for (let turn = 0; turn < 3; turn++) {
    if (await claimKey(context.db, claim, claim.fingerprint, times)) {
      try {
        return await work(claim);
      } catch (error) {
        await releaseClaim(context.db, claim).catch(() => {});
        throw error;
      }
    }
    const record = await findKey(context.db, claim);
    if (record !== undefined) return settled(record, claim.fingerprint);
  }
  throw inFlight();
}

/**
 * Runs work in a transaction that also records its answer under the claim, so that the work and its
 * answer commit together or not at all; without a claim, the work alone. A claim lost while the work
 * ran (its lease ended and another request took the key) rolls the work back and answers as the key
 * does now. `committed` runs once the work has committed (to count it), never for an answer replayed.
 */
export async function answerOnce<T>(
  context: ServiceContext,
  request: KeyedRequest,
  work: (trx: Db) => Promise<Answer<T>>,
  committed?: () => void,
): Promise<Answer<T>> {
  return underKey(context, request, (claim) => recordOnce(context.db, claim, work, committed));
}

/** Thrown inside the transaction to roll back work whose claim was lost. */
class ClaimLost extends Error {}

/**
 * The recording half of answerOnce, for work under a claim taken before (execution asks the bank
 * between two transactions): the last step and the answer commit together; then `committed` runs.
 */
export async function recordOnce<T>(
  db: StoreDb,
  claim: Claim | undefined,
  work: (trx: Db) => Promise<Answer<T>>,
  committed?: () => void,
): Promise<Answer<T>> {
  try {
    const answer = await db.transaction(async (trx) => {
      const answer = await work(trx);
      if (claim !== undefined && !(await recordAnswer(trx, { claim, ...answer }))) throw new ClaimLost();
      return answer;
    });
    committed?.();
    return answer;
  } catch (error) {
    if (!(error instanceof ClaimLost)) throw error;
    return answerOfKey(db, claim!);
  }
}

/**
 * For work stored with its answer in one statement, without a transaction (an initiation): `store`
 * records the answer under the claim together with the work, or answers false, storing nothing, when
 * the claim was lost; then the key's answer comes back. `committed` runs once the work is stored.
 */
export async function storeOnce<T>(
  db: StoreDb,
  claim: Claim | undefined,
  answer: Answer<T>,
  store: (recorded: { claim: Claim; statusCode: number; body: T } | undefined) => Promise<boolean>,
  committed?: () => void,
): Promise<Answer<T>> {
  if (!(await store(claim === undefined ? undefined : { claim, ...answer }))) {
    if (claim === undefined) throw new Error('a request without a key stored nothing');
    return answerOfKey(db, claim);
  }
  committed?.();
  return answer;
}

/** What the key of a lost claim answers now: the answer of the request that took it, or 409/422. */
export async function answerOfKey<T>(db: StoreDb, claim: Claim): Promise<Answer<T>> {
  const record = await findKey(db, claim);
  if (record === undefined) throw inFlight();
  return settled(record, claim.fingerprint);
}

function settled<T>(record: KeyRecord, print: string): Answer<T> {
  if (record.fingerprint !== print) {
    throw apiError(
      'IDEMPOTENCY_KEY_REUSED',
      'Idempotency-Key was already used for another request to this operation: send a new key for a new request',
      'Idempotency-Key',
    );
  }
  if (record.inFlight) throw inFlight();
  return { statusCode: record.statusCode, body: record.body as T };
}

function inFlight() {
  return apiError(
    'IDEMPOTENCY_KEY_IN_FLIGHT',
    'A request with this Idempotency-Key is still being processed: retry after it has been answered',
    'Idempotency-Key',
  );
}
