// The port to the national mobile e-ID. The built-in simulator keeps its orders in the database so
// that several gateway processes share them; in the sandbox it completes every order at once and
// ignores cancellation (spec: the sandbox is not connected and always succeeds).
import { randomUUID } from 'node:crypto';
import { animatedQrCode, type OrderState, orderStateAt } from '../domain/eid.ts';
import { newSecret } from '../domain/secrets.ts';
import type { Db } from '../store/database.ts';
import {
  findOrder,
  findOrderByToken,
  findPendingOrders,
  insertOrder,
  type OrderRow,
  updatePendingOrder,
} from '../store/decoupled-repository.ts';

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
}

export interface EidCollect {
  readonly state: OrderState;
  /** The QR code to show now (it changes every second). */
  readonly qrCode: string;
}

export interface EidProvider {
  /** True for the built-in simulator, whose pretend e-ID app (/psu/eid) the gateway then serves. */
  readonly simulated: boolean;
  start(db: Db, request: EidOrderRequest, now: Date): Promise<EidOrder>;
  collect(db: Db, orderRef: string, now: Date): Promise<EidCollect>;
  cancel(db: Db, orderRef: string, now: Date): Promise<void>;
}

function storedState(order: OrderRow): OrderState {
  if (order.status === 'complete') return { status: 'complete', personalNumber: order.personalNumber };
  return { status: order.status, hintCode: order.hintCode } as OrderState;
}

function qrCodeOf(order: OrderRow, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - order.createdAt.getTime()) / 1000));
  return animatedQrCode(order.qrStartToken, order.qrStartSecret, seconds);
}

/** The e-ID simulator; `instant` completes every order at its first collect (the sandbox). */
export function eidSimulator(options: { readonly instant: boolean }): EidProvider {
  return {
    simulated: true,
    async start(db, request, now) {
      const order = {
        orderRef: randomUUID(),
        autoStartToken: randomUUID(),
        qrStartToken: randomUUID(),
      };
      await insertOrder(db, {
        ...order,
        personalNumber: request.personalNumber,
        endUserIp: request.endUserIp,
        visibleText: request.visibleText,
        qrStartSecret: newSecret(),
        status: 'pending',
        hintCode: 'outstandingTransaction',
        createdAt: now,
      });
      return order;
    },

    async collect(db, orderRef, now) {
      const order = await findOrder(db, orderRef);
      if (order === undefined) throw new Error(`no e-ID order ${orderRef}`);
      if (options.instant && order.status === 'pending') {
        await updatePendingOrder(db, orderRef, {
          status: 'complete',
          hintCode: 'complete',
          startedAt: now,
          endedAt: now,
        });
        return {
          state: { status: 'complete', personalNumber: order.personalNumber },
          qrCode: qrCodeOf(order, now),
        };
      }
      const state = orderStateAt(
        storedState(order),
        order.createdAt.getTime(),
        order.startedAt?.getTime() ?? null,
        now.getTime(),
      );
      if (state.status === 'failed' && order.status === 'pending') {
        await updatePendingOrder(db, orderRef, { status: 'failed', hintCode: state.hintCode, endedAt: now });
      }
      return { state, qrCode: qrCodeOf(order, now) };
    },

    async cancel(db, orderRef, now) {
      if (options.instant) return;
      await updatePendingOrder(db, orderRef, { status: 'failed', hintCode: 'userCancel', endedAt: now });
    },
  };
}

/** What the simulated e-ID app does for the PSU (the /psu/eid page). */
export const eidApp = {
  /**
   * The order a PSU points the app at: the latest pending order for a personal number, or the order
   * of an auto-start token, or of a scanned QR code (whose HMAC the app checks, as the real app does).
   */
  async find(db: Db, input: string, now: Date): Promise<OrderRow | undefined> {
    const text = input.trim();
    const qr = /^bankid\.([0-9a-f-]{36})\.(\d+)\.([0-9a-f]{64})$/.exec(text);
    let order: OrderRow | undefined;
    if (qr !== null) {
      order = await findOrderByToken(db, 'qrStartToken', qr[1]!);
      if (
        order !== undefined &&
        animatedQrCode(order.qrStartToken, order.qrStartSecret, Number(qr[2])) !== text
      ) {
        order = undefined;
      }
    } else if (/^[0-9a-f-]{36}$/.test(text)) {
      order = await findOrderByToken(db, 'autoStartToken', text);
    } else if (/^\d{10,12}$/.test(text)) {
      order = (await findPendingOrders(db, text)).at(-1);
    }
    if (order === undefined || order.status !== 'pending') return undefined;
    const state = orderStateAt(
      storedState(order),
      order.createdAt.getTime(),
      order.startedAt?.getTime() ?? null,
      now.getTime(),
    );
    return state.status === 'pending' ? order : undefined;
  },
  /** The PSU opened the order in the app: it waits for the PSU's signature. */
  async open(db: Db, orderRef: string, now: Date): Promise<boolean> {
    return updatePendingOrder(db, orderRef, { hintCode: 'userSign', startedAt: now });
  },
  async approve(db: Db, orderRef: string, now: Date): Promise<boolean> {
    return updatePendingOrder(db, orderRef, { status: 'complete', hintCode: 'complete', endedAt: now });
  },
  async decline(db: Db, orderRef: string, now: Date): Promise<boolean> {
    return updatePendingOrder(db, orderRef, { status: 'failed', hintCode: 'userCancel', endedAt: now });
  },
};
