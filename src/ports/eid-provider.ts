// The port to the national mobile e-ID: start an identification order for a PSU, collect its state,
// cancel it. The built-in simulator (src/adapters/eid-simulator.ts) is one implementation; the pretend
// e-ID app it also brings for the PSU is no part of the port (services/shared/simulated-eid-app.ts),
// since a real relying-party connection has none.
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

export interface EidProvider {
  start(request: EidOrderRequest, now: Date): Promise<EidOrder>;
  collect(orderRef: string, now: Date): Promise<EidCollect>;
  cancel(orderRef: string, now: Date): Promise<void>;
}
