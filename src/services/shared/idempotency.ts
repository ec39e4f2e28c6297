// A repeated TPP-Request-ID from the same app: with the same request the first answer comes back and
// nothing happens twice; with another request it is refused (API-NOTES "Headers").
import { apiError } from '../../domain/errors.ts';
import type { Db, StoreDb } from '../../store/database.ts';
import {
  findAnswer,
  type RecordedAnswer,
  type RequestKey,
  recordAnswer,
} from '../../store/idempotency-repository.ts';

export interface Answer<T> {
  readonly statusCode: number;
  readonly body: T;
}

/** Thrown inside the transaction to roll back work whose request id turned out to be taken. */
class RequestIdTaken extends Error {}

/**
 * Runs work in a transaction that also records its answer under the request id, so the work and its
 * record commit together or not at all. A known id answers the recorded answer without doing the
 * work; an id taken while the work ran rolls the work back and answers the winner's answer. An error
 * from work rolls everything back: a refused request may be retried under the same id. `committed`
 * runs once the work has committed (to count it), never for an answer replayed or rolled back.
 */
export async function answerOnce<T>(
  db: StoreDb,
  key: RequestKey,
  fingerprint: string,
  work: (trx: Db) => Promise<Answer<T>>,
  committed?: () => void,
): Promise<Answer<T>> {
  return (await earlierAnswer<T>(db, key, fingerprint)) ?? recordOnce(db, key, fingerprint, work, committed);
}

/** The answer recorded under the request id, if it has one; throws when it was another request's. */
export async function earlierAnswer<T>(
  db: StoreDb,
  key: RequestKey,
  fingerprint: string,
): Promise<Answer<T> | undefined> {
  const earlier = await findAnswer(db, key);
  return earlier === undefined ? undefined : replay(earlier, fingerprint);
}

/**
 * The second half of answerOnce, for work that had to start before (execution asks the bank between
 * two transactions): the last step and the answer commit together; then `committed` runs.
 */
export async function recordOnce<T>(
  db: StoreDb,
  key: RequestKey,
  fingerprint: string,
  work: (trx: Db) => Promise<Answer<T>>,
  committed?: () => void,
): Promise<Answer<T>> {
  try {
    const answer = await db.transaction(async (trx) => {
      const answer = await work(trx);
      if (!(await recordAnswer(trx, key, fingerprint, answer.statusCode, answer.body)))
        throw new RequestIdTaken();
      return answer;
    });
    committed?.();
    return answer;
  } catch (error) {
    if (!(error instanceof RequestIdTaken)) throw error;
    return replayAnswer(db, key, fingerprint);
  }
}

/**
 * For work stored with its answer in one statement, without a transaction (an initiation): `store`
 * records the answer under the request id together with the work, or answers false, storing nothing,
 * when the id was taken; then the first answer comes back (or REQUEST_ID_REUSED). `committed` runs once
 * the work is stored. The use case hands its statement to this step rather than replaying after it, so
 * that a walk of the request goes one way down, from here into the store (issue 38).
 */
export async function storeOnce<T>(
  db: StoreDb,
  key: RequestKey,
  fingerprint: string,
  answer: Answer<T>,
  store: (recorded: RecordedAnswer) => Promise<boolean>,
  committed?: () => void,
): Promise<Answer<T>> {
  if (!(await store({ key, fingerprint, ...answer }))) return replayAnswer(db, key, fingerprint);
  committed?.();
  return answer;
}

/** The answer recorded under a request id that turned out to be taken. */
export async function replayAnswer<T>(db: StoreDb, key: RequestKey, fingerprint: string): Promise<Answer<T>> {
  const winner = await findAnswer(db, key);
  if (winner === undefined) throw new Error('request id taken but no answer recorded');
  return replay(winner, fingerprint);
}

function replay<T>(
  earlier: { fingerprint: string; statusCode: number; body: unknown },
  fingerprint: string,
): Answer<T> {
  if (earlier.fingerprint !== fingerprint) {
    throw apiError(
      'REQUEST_ID_REUSED',
      'TPP-Request-ID was already used for another request: send a new one for every request',
      'TPP-Request-ID',
    );
  }
  return { statusCode: earlier.statusCode, body: earlier.body as T };
}
