// The PSU's password, checked on the login page and in the simulator's e-ID app, with failures counted
// by the gateway for any PSU id typed, known to the bank or not, so that the answers never tell a
// customer from a stranger (issue 37). A PSU id is locked per client address after MAX_FAILURES_PER_ADDRESS
// failures, for LOCK_MS: a stranger locks out only the stranger's own address. Over every address a PSU
// id is never locked (a stranger with many addresses would lock the customer out): from
// MAX_FAILURES_PER_PSU failures on, every answer for that id waits a delay that grows with the failures,
// up to MAX_DELAY_MS (a bound on guessing one PSU's password from many addresses). The right password
// from an address that is not locked itself always logs in, only later.
import type { AuditEvent } from '../../domain/audit.ts';
import { hashSecret } from '../../domain/secrets.ts';
import { recordEvents } from '../../store/audit/record.ts';
import {
  countLoginFailure,
  EVERY_ADDRESS,
  forgetLoginFailures,
  loginState,
  purgeLoginFailures,
} from '../../store/login-failures-repository.ts';
import type { ServiceContext } from '../shared/context.ts';

/** Failed logins of one PSU id from one client address before that address is locked out for it. */
export const MAX_FAILURES_PER_ADDRESS = 5;
/** Failed logins of one PSU id from every address before each answer for it is slowed down. */
export const MAX_FAILURES_PER_PSU = 100;
/** How long a lock lasts, and how long a failure is remembered after the last one. */
export const LOCK_MS = 15 * 60_000;
/** The delay's step: one more for each failure over MAX_FAILURES_PER_PSU. */
export const DELAY_STEP_MS = 250;
/** The longest an answer waits. */
export const MAX_DELAY_MS = 5_000;

export type LoginOutcome = 'ok' | 'wrong' | 'locked';

export interface LoginAttempt {
  readonly psuId: string;
  readonly password: string;
  /** The client address the form came from. */
  readonly address: string;
  /** The request's correlation id, for the audit trail. */
  readonly correlationId?: string | undefined;
}

/** How long an answer for a PSU id with so many failures from every address waits (0: none). */
function loginDelayMs(failuresEverywhere: number): number {
  if (failuresEverywhere < MAX_FAILURES_PER_PSU) return 0;
  return Math.min(MAX_DELAY_MS, (failuresEverywhere - MAX_FAILURES_PER_PSU + 1) * DELAY_STEP_MS);
}

/**
 * Checks a login. Each attempt leaves its audit record (`psu.login`: succeeded, failed, locked; with
 * `slowedMs` when the answer was slowed down), written with the counts it changes, in one transaction.
 * The PSU id is the one typed: a stranger's guess is recorded as typed.
 */
export async function checkLogin(context: ServiceContext, attempt: LoginAttempt): Promise<LoginOutcome> {
  const psuKey = hashSecret(attempt.psuId);
  const state = await loginState(context.db, psuKey, attempt.address, LOCK_MS, context.clock());
  const record = (outcome: string, slowedMs: number): AuditEvent => ({
    event: 'psu.login',
    outcome,
    resource: null,
    psuId: attempt.psuId,
    address: attempt.address,
    correlationId: attempt.correlationId ?? null,
    detail: slowedMs > 0 ? { slowedMs } : null,
  });
  if (state.locked) {
    await recordEvents(context.db, [record('locked', 0)]);
    return 'locked';
  }
  const delay = loginDelayMs(state.failuresEverywhere);
  if (delay > 0) await context.sleep(delay);
  // After the delay: the time the answer is given.
  const now = context.clock();
  // A directory's own "locked" is answered as a wrong password: it would be for known PSUs only.
  const result = await context.psuDirectory.authenticate(attempt.psuId, attempt.password, now);
  if (result.ok) {
    await context.db.transaction(async (trx) => {
      await forgetLoginFailures(trx, psuKey, attempt.address);
      await recordEvents(trx, [record('succeeded', delay)]);
    });
    return 'ok';
  }
  const rule = { lockMs: LOCK_MS, forgetMs: LOCK_MS };
  return context.db.transaction(async (trx) => {
    const fromHere = await countLoginFailure(
      trx,
      { psuKey, address: attempt.address },
      { ...rule, max: MAX_FAILURES_PER_ADDRESS },
      now,
    );
    await countLoginFailure(trx, { psuKey, address: EVERY_ADDRESS }, rule, now);
    await purgeLoginFailures(trx, LOCK_MS, now);
    await recordEvents(trx, [record(fromHere ? 'locked' : 'failed', delay)]);
    return fromHere ? 'locked' : 'wrong';
  });
}
