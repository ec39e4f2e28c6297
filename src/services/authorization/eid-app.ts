// The pretend mobile e-ID app of the built-in simulator (/psu/eid): the PSU opens the order by
// personal number, auto-start token or QR code, sees what it is signing, and approves or declines.
// It stands in for the PSU's phone, so it exists only with the simulator, never with a real provider.
import type { SimulatedEidApp } from '../../ports/eid-provider.ts';
import type { ServiceContext } from '../shared/context.ts';
import type { PsuAnswer } from './psu-answer.ts';

/** The simulator's app; the routes exist only where the e-ID provider has one. */
function appOf(context: ServiceContext): SimulatedEidApp {
  if (context.eid.simulatedApp === undefined) throw new Error('the e-ID provider is no simulator');
  return context.eid.simulatedApp;
}

export function eidStart(): PsuAnswer {
  return { kind: 'page', status: 200, page: { view: 'eid-start' } };
}

export async function eidOpen(context: ServiceContext, input: string | undefined): Promise<PsuAnswer> {
  const now = context.clock();
  const app = appOf(context);
  const order = await app.find(input ?? '', now);
  if (order === undefined || !(await app.open(order.orderRef, now))) {
    return {
      kind: 'page',
      status: 404,
      page: { view: 'eid-start', error: 'No identification is waiting for that personal number or code.' },
    };
  }
  return {
    kind: 'page',
    status: 200,
    page: { view: 'eid-order', orderRef: order.orderRef, text: order.visibleText },
  };
}

export async function eidSign(
  context: ServiceContext,
  orderRef: string | undefined,
  decision: string | undefined,
): Promise<PsuAnswer> {
  const now = context.clock();
  const approve = decision === 'approve';
  const done =
    orderRef !== undefined &&
    (approve ? await appOf(context).approve(orderRef, now) : await appOf(context).decline(orderRef, now));
  if (!done) {
    return {
      kind: 'page',
      status: 400,
      page: { view: 'message', title: 'Nothing to sign', text: 'This identification has ended.' },
    };
  }
  return {
    kind: 'page',
    status: 200,
    page: {
      view: 'message',
      title: approve ? 'Signed' : 'Cancelled',
      text: approve ? 'You can return to the app you came from.' : 'Nothing was signed.',
    },
  };
}
