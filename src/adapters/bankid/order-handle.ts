// What the gateway keeps of a BankID order, inside the order reference it hands the decoupled service:
// the provider's orderRef, and what the animated QR code needs (qrStartToken, qrStartSecret, when the
// order started). The service stores that reference with its session, in the database every gateway
// process shares, so any process can answer a poll and a restart loses nothing; no table of our own.

export interface OrderHandle {
  readonly orderRef: string;
  readonly qrStartToken: string;
  readonly qrStartSecret: string;
  /** When the provider answered the order, ms since the epoch: the QR code's seconds count from here. */
  readonly startedAt: number;
}

const PREFIX = 'bankid:';

export function encodeHandle(handle: OrderHandle): string {
  const { orderRef, qrStartToken, qrStartSecret, startedAt } = handle;
  return PREFIX + JSON.stringify({ orderRef, qrStartToken, qrStartSecret, startedAt });
}

export function decodeHandle(reference: string): OrderHandle {
  let handle: Partial<Record<keyof OrderHandle, unknown>> | undefined;
  try {
    handle = reference.startsWith(PREFIX) ? JSON.parse(reference.slice(PREFIX.length)) : undefined;
  } catch {
    handle = undefined;
  }
  const { orderRef, qrStartToken, qrStartSecret, startedAt } = handle ?? {};
  if (
    typeof orderRef !== 'string' ||
    typeof qrStartToken !== 'string' ||
    typeof qrStartSecret !== 'string' ||
    typeof startedAt !== 'number'
  ) {
    // Not echoed: a handle carries the QR secret. An order of the simulator, started before the
    // gateway was switched to BankID, ends here.
    throw new Error('the e-ID order reference is not one of the BankID provider');
  }
  return { orderRef, qrStartToken, qrStartSecret, startedAt };
}
