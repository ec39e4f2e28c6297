// The pretend e-ID app that only the built-in e-ID simulator brings (adapters/eid-simulator.ts), as
// the PSU pages use it: no part of the e-ID port (ports/eid-provider.ts), which a real relying-party
// connection implements too. The composition root (app.ts) wires it into the context only when the
// simulator is the e-ID provider; the gateway then serves it at /psu/eid (api/psu/psu-routes.ts).

/** A pending order as the simulator's app shows it. */
export interface SimulatedOrder {
  readonly orderRef: string;
  /** The PSU the order is for: the only one who may sign or cancel it. */
  readonly personalNumber: string;
  readonly visibleText: string;
}

/**
 * The PSU's side of the simulator. It proves nobody's identity: its caller identifies the PSU (with the
 * PSU directory) and approves or declines only an order that is for the PSU it identified.
 */
export interface SimulatedEidApp {
  /** The pending order a PSU points the app at: by personal number, auto-start token or scanned QR code. */
  find(input: string, now: Date): Promise<SimulatedOrder | undefined>;
  /** An order by its reference, while it can still be signed. */
  pending(orderRef: string, now: Date): Promise<SimulatedOrder | undefined>;
  /** The PSU opened the order in the app: it waits for the signature. */
  open(orderRef: string, now: Date): Promise<boolean>;
  /**
   * The PSU the order is for identified in the app: whoever holds the ticket (its hash here) may now see
   * and sign it; a later identification replaces it. False when the order can no longer be signed.
   */
  identified(orderRef: string, ticketHash: string, now: Date): Promise<boolean>;
  /** The order of a ticket (its hash), while it can still be signed. */
  signable(ticketHash: string, now: Date): Promise<SimulatedOrder | undefined>;
  /** False when the order can no longer be signed. */
  approve(orderRef: string, now: Date): Promise<boolean>;
  decline(orderRef: string, now: Date): Promise<boolean>;
}
