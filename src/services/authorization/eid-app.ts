// The pretend mobile e-ID app of the built-in simulator (/psu/eid): the PSU opens the order by
// personal number, auto-start token or QR code, sees what it is signing, and approves or declines.
// It stands in for the PSU's phone, so it exists only with the simulator, never with a real provider.
import { eidApp } from '../../ports/eid-provider.ts';
import type { ServiceContext } from '../shared/context.ts';
import type { PsuAnswer } from './psu-login.ts';

export function eidStart(): PsuAnswer {
  return { kind: 'page', status: 200, page: { view: 'eid-start' } };
}

export async function eidOpen(context: ServiceContext, input: string | undefined): Promise<PsuAnswer> {
  const now = context.clock();
  const order = await eidApp.find(context.db, input ?? '', now);
  if (order === undefined || !(await eidApp.open(context.db, order.orderRef, now))) {
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
    (approve
      ? await eidApp.approve(context.db, orderRef, now)
      : await eidApp.decline(context.db, orderRef, now));
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
