// A repeated TPP-Request-ID from the same app: with the same request the first answer comes back and
// nothing happens twice; with another request it is refused (API-NOTES "Headers").
import { apiError } from '../domain/errors.ts';
import type { Db } from '../store/database.ts';
import { claimRequest, findAnswer, type RequestKey, saveAnswer } from '../store/idempotency-repository.ts';

export interface Answer<T> {
  readonly statusCode: number;
  readonly body: T;
}

/**
 * Runs work in a transaction that also claims the request id and stores the answer, so the work and
 * its record commit together or not at all. An error from work rolls both back: a failed request may
 * be retried with the same id.
 */
export async function answerOnce<T>(
  db: Db,
  key: RequestKey,
  fingerprint: string,
  work: (trx: Db) => Promise<Answer<T>>,
): Promise<Answer<T>> {
  return db.transaction(async (trx) => {
    if (!(await claimRequest(trx, key, fingerprint))) {
      const earlier = await findAnswer(trx, key);
      if (earlier === undefined || earlier.statusCode === null || earlier.fingerprint !== fingerprint) {
        throw apiError(
          'REQUEST_ID_REUSED',
          'TPP-Request-ID was already used for another request: send a new one for every request',
          'TPP-Request-ID',
        );
      }
      return { statusCode: earlier.statusCode, body: earlier.body as T };
    }
    const answer = await work(trx);
    await saveAnswer(trx, key, answer.statusCode, answer.body);
    return answer;
  });
}
