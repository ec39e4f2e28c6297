// The e-ID provider's calls as the decoupled flow makes them. A provider reports the failures a TPP can
// act on: the e-ID service is unavailable for now (the domain's SystemUnavailable), or the PSU already
// had an order in progress (a string `eidFailure` on its error, src/adapters/bankid/rp-client.ts). They
// become OAuth errors (503 temporarily_unavailable with Retry-After, mbid_error); anything else stays an
// internal error (logged, answered server_error).
import { SystemUnavailable } from '../../domain/bank-systems.ts';
import { OAuthError } from '../../domain/errors.ts';
import type { EidCollect, EidOrder, EidOrderRequest } from '../../ports/eid-provider.ts';
import type { ServiceContext } from '../shared/context.ts';

type EidFailure = 'unavailable' | 'alreadyInProgress';

function failureOf(error: unknown): EidFailure | undefined {
  if (error instanceof SystemUnavailable) return 'unavailable';
  const failure = (error as { eidFailure?: unknown } | null | undefined)?.eidFailure;
  return failure === 'alreadyInProgress' ? failure : undefined;
}

/** The OAuth error, with the provider's error as its cause: the log of a 503 says what failed. */
function because(
  cause: unknown,
  ...[error, description]: ConstructorParameters<typeof OAuthError>
): OAuthError {
  const oauthError = new OAuthError(error, description);
  oauthError.cause = cause;
  return oauthError;
}

export async function startOrder(
  context: ServiceContext,
  request: EidOrderRequest,
  now: Date,
): Promise<EidOrder> {
  try {
    return await context.eid.start(request, now);
  } catch (error) {
    const failure = failureOf(error);
    if (failure === 'alreadyInProgress') {
      throw because(
        error,
        'mbid_error',
        'the PSU already had an e-ID order in progress, which the e-ID service has now ended: start again',
      );
    }
    if (failure === 'unavailable')
      throw because(error, 'temporarily_unavailable', 'the e-ID service is unavailable: try again later');
    throw error;
  }
}

/** The session goes on when the e-ID service cannot be asked now: the order may still complete. */
export async function collectOrder(
  context: ServiceContext,
  orderRef: string,
  now: Date,
): Promise<EidCollect> {
  try {
    return await context.eid.collect(orderRef, now);
  } catch (error) {
    if (failureOf(error) !== 'unavailable') throw error;
    throw because(
      error,
      'temporarily_unavailable',
      'the e-ID service is unavailable: the session goes on, poll again after sleep_time',
    );
  }
}

/**
 * Ends an order once the session's end has committed. The session decides what the TPP gets: an e-ID
 * service unavailable now changes no answer, and its order ends by itself within its lifetime.
 */
export async function cancelOrder(context: ServiceContext, orderRef: string, now: Date): Promise<void> {
  try {
    await context.eid.cancel(orderRef, now);
  } catch (error) {
    if (failureOf(error) !== 'unavailable') throw error;
  }
}
