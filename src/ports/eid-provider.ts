// The port to the national mobile e-ID: start an identification order for a PSU, collect its state,
// cancel it. The built-in simulator (src/adapters/eid-simulator.ts) is one implementation and brings
// a pretend e-ID app for the PSU; a real relying-party connection brings none.
import type { OrderState } from '../domain/eid.ts';

export interface EidOrderRequest {
  /** The PSU who must identify (the e-ID order is bound to that personal number). */
  readonly personalNumber: string;
  readonly endUserIp: string;
  /** What the e-ID app shows the PSU. */
  readonly visibleText: string;
}

export interface EidOrder {
  readonly orderRef: string;
  readonly autoStartToken: string;
  readonly qrStartToken: string;
  /** The QR code to show at the start (it changes every second; collect answers the current one). */
  readonly qrCode: string;
}

export interface EidCollect {
  readonly state: OrderState;
  /** The QR code to show now (it changes every second). */
  readonly qrCode: string;
}

/** A pending order as the simulator's app shows it. */
export interface SimulatedOrder {
  readonly orderRef: string;
  /** The PSU the order is for: the only one who may sign or cancel it. */
  readonly personalNumber: string;
  readonly visibleText: string;
}

/**
 * The PSU's side of the simulator: the pretend e-ID app that the gateway then serves at /psu/eid. It
 * proves nobody's identity: its caller identifies the PSU (with the PSU directory) and approves or
 * declines only an order that is for the PSU it identified.
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

export interface EidProvider {
  start(request: EidOrderRequest, now: Date): Promise<EidOrder>;
  collect(orderRef: string, now: Date): Promise<EidCollect>;
  cancel(orderRef: string, now: Date): Promise<void>;
  /** Only the built-in simulator has one. */
  readonly simulatedApp?: SimulatedEidApp;
}
