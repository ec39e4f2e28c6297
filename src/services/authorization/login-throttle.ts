// The PSU's password, checked on the login page and in the simulator's e-ID app, with failures counted
// by the gateway for any PSU id typed, known to the bank or not, so that the answers never tell a
// customer from a stranger (issue 37). A PSU id is locked per client address after MAX_FAILURES_PER_ADDRESS
// failures (a stranger locks out only the stranger's own address), and for every address after
// MAX_FAILURES_PER_PSU (a bound on guessing one PSU's password from many addresses), each for LOCK_MS.
import { hashSecret } from '../../domain/secrets.ts';
import {
  countLoginFailure,
  EVERY_ADDRESS,
  forgetLoginFailures,
  loginLocked,
  purgeLoginFailures,
} from '../../store/login-failures-repository.ts';
import type { ServiceContext } from '../shared/context.ts';

/** Failed logins of one PSU id from one client address before that address is locked out for it. */
export const MAX_FAILURES_PER_ADDRESS = 5;
/** Failed logins of one PSU id from every address before the PSU id is locked for all. */
export const MAX_FAILURES_PER_PSU = 100;
/** How long a lock lasts, and how long a failure is remembered after the last one. */
export const LOCK_MS = 15 * 60_000;

export type LoginOutcome = 'ok' | 'wrong' | 'locked';

export interface LoginAttempt {
  readonly psuId: string;
  readonly password: string;
  /** The client address the form came from. */
  readonly address: string;
}

export async function checkLogin(context: ServiceContext, attempt: LoginAttempt): Promise<LoginOutcome> {
  const now = context.clock();
  const psuKey = hashSecret(attempt.psuId);
  if (await loginLocked(context.db, psuKey, attempt.address, now)) return 'locked';
  // A directory's own "locked" is answered as a wrong password: it would be for known PSUs only.
  const result = await context.psuDirectory.authenticate(attempt.psuId, attempt.password, now);
  if (result.ok) {
    await forgetLoginFailures(context.db, psuKey, attempt.address);
    return 'ok';
  }
  const rule = { lockMs: LOCK_MS, forgetMs: LOCK_MS };
  const fromHere = await countLoginFailure(
    context.db,
    { psuKey, address: attempt.address },
    { ...rule, max: MAX_FAILURES_PER_ADDRESS },
    now,
  );
  const fromAll = await countLoginFailure(
    context.db,
    { psuKey, address: EVERY_ADDRESS },
    { ...rule, max: MAX_FAILURES_PER_PSU },
    now,
  );
  await purgeLoginFailures(context.db, LOCK_MS, now);
  return fromHere || fromAll ? 'locked' : 'wrong';
}
