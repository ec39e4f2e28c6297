// The national e-ID through its relying-party API (BankID RP API v6.0): a sign order bound to the PSU's
// personal number that shows what the PSU approves; collect mapped to the domain's order states; the
// animated QR code computed here, as the qrStartSecret never leaves the server.
import { randomUUID } from 'node:crypto';
import { animatedQrCode, type FailedHint, type OrderState, type PendingHint } from '../../domain/eid.ts';
import type { EidOrderRequest, EidProvider } from '../../ports/eid-provider.ts';
import { decodeHandle, encodeHandle, type OrderHandle } from './order-handle.ts';
import { EidFailure, EidUnavailable, RpRefusal, type RpRetryPolicy, rpClient } from './rp-client.ts';

export interface BankIdOptions {
  /** The API's base URL, e.g. https://appapi2.bankid.com/rp/v6.0 (BANKID_URL). */
  readonly url: string;
  /** The relying party's client certificate and key, PEM contents (not paths). */
  readonly cert: string;
  readonly key: string;
  /** The issuers of the service's server certificate, PEM; unset: the system's. */
  readonly ca?: string;
  /** The gateway's clock: the QR code's seconds count by it. */
  readonly clock?: () => Date;
  readonly retry?: Partial<RpRetryPolicy>;
}

const PENDING_HINTS: readonly string[] = ['outstandingTransaction', 'noClient', 'started', 'userSign'];
const FAILED_HINTS: readonly string[] = ['expiredTransaction', 'userCancel', 'certificateErr', 'startFailed'];

export interface BankIdProvider extends EidProvider {
  /**
   * Whether the service answers (health, readiness): a collect of an order nobody made, which the
   * service refuses (invalidParameters) when it is up. Rejects with EidUnavailable when it is not.
   */
  probe(): Promise<void>;
}

export function bankIdProvider(options: BankIdOptions): BankIdProvider {
  const clock = options.clock ?? (() => new Date());
  const rp = rpClient(options);
  const qrCodeAt = (handle: OrderHandle) =>
    animatedQrCode(
      handle.qrStartToken,
      handle.qrStartSecret,
      Math.max(0, Math.floor((clock().getTime() - handle.startedAt) / 1000)),
    );

  return {
    async start(request) {
      const answer = await rp.call('/sign', signRequest(request)).catch(refusedStart);
      const { orderRef, autoStartToken, qrStartToken, qrStartSecret } = fields(
        answer,
        ['orderRef', 'autoStartToken', 'qrStartToken', 'qrStartSecret'],
        '/sign',
      );
      const handle = { orderRef, qrStartToken, qrStartSecret, startedAt: clock().getTime() };
      return { orderRef: encodeHandle(handle), autoStartToken, qrStartToken, qrCode: qrCodeAt(handle) };
    },

    async probe() {
      try {
        await rp.call('/collect', { orderRef: randomUUID() });
      } catch (error) {
        if (error instanceof RpRefusal) return;
        throw error;
      }
    },

    async collect(reference) {
      const handle = decodeHandle(reference);
      const answer = await rp.call('/collect', { orderRef: handle.orderRef });
      return { state: orderState(answer), qrCode: qrCodeAt(handle) };
    },

    async cancel(reference) {
      const { orderRef } = decodeHandle(reference);
      try {
        await rp.call('/cancel', { orderRef });
      } catch (error) {
        // The order has already ended (completed, failed, cancelled before): what cancel wants.
        if (error instanceof RpRefusal && error.errorCode === 'invalidParameters') return;
        throw error;
      }
    },
  };
}

function signRequest(request: EidOrderRequest) {
  return {
    endUserIp: request.endUserIp,
    requirement: { personalNumber: request.personalNumber },
    userVisibleData: Buffer.from(markdownLine(request.visibleText), 'utf8').toString('base64'),
    userVisibleDataFormat: 'simpleMarkdownV1',
  };
}

/**
 * The visible text as one line of simpleMarkdownV1. It begins with the gateway's own words, so only
 * inline emphasis could take effect: a payee named with asterisks must not print in bold.
 */
function markdownLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').replace(/[\\*]/g, '\\$&');
}

/**
 * alreadyInProgress: the PSU has another order, which the service has now ended, and made none. After
 * an attempt that may have been processed, that other order was most likely our own: unavailable.
 */
function refusedStart(error: unknown): never {
  if (error instanceof RpRefusal && error.errorCode === 'alreadyInProgress') {
    throw error.uncertain
      ? new EidUnavailable('the e-ID order may have been started twice; both have ended')
      : new EidFailure('alreadyInProgress', 'the PSU already has an e-ID order in progress');
  }
  throw error;
}

function orderState(answer: unknown): OrderState {
  const { status, hintCode } = answer as { status?: unknown; hintCode?: unknown };
  if (status === 'pending') {
    // userMrtd, userCallConfirm and hints yet to come: the PSU has the order in the app.
    return {
      status,
      hintCode: (PENDING_HINTS.includes(String(hintCode)) ? hintCode : 'started') as PendingHint,
    };
  }
  if (status === 'failed') {
    // cancelled (a newer order for the PSU), userDeclinedCall, transactionRiskBlocked, notSupportedByUserApp
    // and hints yet to come: the domain's failure the PSU can only start over from (mbid_error).
    return {
      status,
      hintCode: (FAILED_HINTS.includes(String(hintCode)) ? hintCode : 'certificateErr') as FailedHint,
    };
  }
  if (status === 'complete') {
    const user = (answer as { completionData?: { user?: unknown } }).completionData?.user;
    return { status, personalNumber: fields(user, ['personalNumber'], '/collect').personalNumber };
  }
  throw new Error(`the e-ID service answered /collect with an unknown status: ${String(status)}`);
}

/** The named string fields of an answer; an answer without them is the service's or our mistake. */
function fields<K extends string>(value: unknown, names: readonly K[], path: string): Record<K, string> {
  const record = (value ?? {}) as Record<string, unknown>;
  for (const name of names) {
    if (typeof record[name] !== 'string' || record[name] === '')
      throw new Error(`the e-ID service answered ${path} without ${name}`);
  }
  return record as Record<K, string>;
}
