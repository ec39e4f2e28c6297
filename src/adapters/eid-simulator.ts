// The built-in e-ID simulator. It keeps its orders in the database so that several gateway processes
// share them; in the sandbox it completes every order at once and ignores cancellation (spec: the
// sandbox is not connected and always succeeds). Its pretend e-ID app (simulatedEidApp) is the PSU's
// phone: the gateway serves it at /psu/eid, where the PSU identifies with the PSU directory's
// credentials, since a QR code or an auto-start token proves nothing of who holds it. The app is no part
// of the e-ID port: the composition root wires it beside it (services/shared/simulated-eid-app.ts says
// what it must do).
import { randomUUID } from 'node:crypto';
import { animatedQrCode, type OrderState, orderStateAt } from '../domain/eid.ts';
import { NO_SCENARIOS, type PsuScenario, type ScenarioOf } from '../domain/scenarios.ts';
import { newSecret } from '../domain/secrets.ts';
import type { EidProvider } from '../ports/eid-provider.ts';
import type { StoreDb } from '../store/database.ts';
import {
  countCollect,
  findOrder,
  findOrderByTicket,
  findOrderByToken,
  findPendingOrders,
  insertOrder,
  type OrderRow,
  updatePendingOrder,
} from '../store/decoupled-repository.ts';

function storedState(order: OrderRow): OrderState {
  if (order.status === 'complete') return { status: 'complete', personalNumber: order.personalNumber };
  return { status: order.status, hintCode: order.hintCode } as OrderState;
}

function qrCodeOf(order: OrderRow, now: Date): string {
  const seconds = Math.max(0, Math.floor((now.getTime() - order.createdAt.getTime()) / 1000));
  return animatedQrCode(order.qrStartToken, order.qrStartSecret, seconds);
}

function stateAt(order: OrderRow, now: Date): OrderState {
  return orderStateAt(
    storedState(order),
    order.createdAt.getTime(),
    order.startedAt?.getTime() ?? null,
    now.getTime(),
  );
}

/**
 * The e-ID simulator on a database; `instant` completes every order at its first collect (the
 * sandbox), but for the scenario PSUs, whose orders stay in progress for some collects and then end
 * as the scenario says (signed, cancelled by the PSU, expired; or never, for mbid_max_polling).
 */
export function eidSimulator(options: {
  readonly db: StoreDb;
  readonly instant: boolean;
  readonly scenarioOf?: ScenarioOf;
}): EidProvider {
  const { db } = options;
  const scenarioOf = options.scenarioOf ?? NO_SCENARIOS;

  /** The state of a scenario PSU's order at this collect. */
  async function scripted(order: OrderRow, scenario: PsuScenario, now: Date): Promise<OrderState> {
    const collects = await countCollect(db, order.orderRef);
    if (scenario.maxPolls !== undefined || collects <= (scenario.pendingPolls ?? 0)) {
      if (order.startedAt === null)
        await updatePendingOrder(db, order.orderRef, { hintCode: 'userSign', startedAt: now });
      return { status: 'pending', hintCode: 'userSign' };
    }
    if (scenario.authorization === undefined) {
      await updatePendingOrder(db, order.orderRef, {
        status: 'complete',
        hintCode: 'complete',
        endedAt: now,
      });
      return { status: 'complete', personalNumber: order.personalNumber };
    }
    const hintCode = scenario.authorization === 'declines' ? 'userCancel' : 'expiredTransaction';
    await updatePendingOrder(db, order.orderRef, { status: 'failed', hintCode, endedAt: now });
    return { status: 'failed', hintCode };
  }

  return {
    async start(request, now) {
      const order = {
        orderRef: randomUUID(),
        autoStartToken: randomUUID(),
        qrStartToken: randomUUID(),
      };
      const qrStartSecret = newSecret();
      await insertOrder(db, {
        ...order,
        personalNumber: request.personalNumber,
        endUserIp: request.endUserIp,
        visibleText: request.visibleText,
        qrStartSecret,
        status: 'pending',
        hintCode: 'outstandingTransaction',
        createdAt: now,
      });
      return { ...order, qrCode: animatedQrCode(order.qrStartToken, qrStartSecret, 0) };
    },

    async collect(orderRef, now) {
      const order = await findOrder(db, orderRef);
      if (order === undefined) throw new Error(`no e-ID order ${orderRef}`);
      const scenario =
        options.instant && order.status === 'pending' ? scenarioOf(order.personalNumber) : undefined;
      if (scenario !== undefined)
        return { state: await scripted(order, scenario, now), qrCode: qrCodeOf(order, now) };
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
      const state = stateAt(order, now);
      if (state.status === 'failed' && order.status === 'pending') {
        await updatePendingOrder(db, orderRef, { status: 'failed', hintCode: state.hintCode, endedAt: now });
      }
      return { state, qrCode: qrCodeOf(order, now) };
    },

    async cancel(orderRef, now) {
      if (options.instant) return;
      await updatePendingOrder(db, orderRef, { status: 'failed', hintCode: 'userCancel', endedAt: now });
    },
  };
}

/** The order as the app shows it, while it can still be signed. */
function stillPending(order: OrderRow | undefined, now: Date) {
  if (order === undefined || order.status !== 'pending' || stateAt(order, now).status !== 'pending')
    return undefined;
  return { orderRef: order.orderRef, personalNumber: order.personalNumber, visibleText: order.visibleText };
}

/** The simulator's pretend e-ID app on a database: the orders of every simulator on it. */
export function simulatedEidApp(db: StoreDb) {
  /** Ends an order that can still be signed; false when it has ended (or timed out, not yet collected). */
  async function end(
    orderRef: string,
    now: Date,
    outcome: { status: 'complete'; hintCode: 'complete' } | { status: 'failed'; hintCode: 'userCancel' },
  ): Promise<boolean> {
    if (stillPending(await findOrder(db, orderRef), now) === undefined) return false;
    return updatePendingOrder(db, orderRef, { ...outcome, endedAt: now });
  }

  return {
    // The latest pending order for a personal number, or the order of an auto-start token, or of a
    // scanned QR code (whose HMAC the app checks, as the real app does).
    async find(input: string, now: Date) {
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
      return stillPending(order, now);
    },
    pending: async (orderRef: string, now: Date) => stillPending(await findOrder(db, orderRef), now),
    open: (orderRef: string, now: Date) =>
      updatePendingOrder(db, orderRef, { hintCode: 'userSign', startedAt: now }),
    identified: async (orderRef: string, ticketHash: string, now: Date) =>
      stillPending(await findOrder(db, orderRef), now) !== undefined &&
      updatePendingOrder(db, orderRef, { signTicketHash: ticketHash }),
    signable: async (ticketHash: string, now: Date) =>
      stillPending(await findOrderByTicket(db, ticketHash), now),
    approve: (orderRef: string, now: Date) =>
      end(orderRef, now, { status: 'complete', hintCode: 'complete' }),
    decline: (orderRef: string, now: Date) =>
      end(orderRef, now, { status: 'failed', hintCode: 'userCancel' }),
  };
}
