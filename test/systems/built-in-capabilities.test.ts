// What the built-in systems bring beside their ports is wired only while they are the ones in use: the
// ledger's one-transaction booking of an execution while it is the core banking system, the simulator's
// pretend e-ID app (and its pages at /psu/eid) while it is the e-ID provider.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { serviceContext as contextOf } from '../../src/app.ts';
import type { EidProvider } from '../../src/ports/eid-provider.ts';
import { builtInLedger, type Gateway, serviceContext, sibling, startGateway } from '../helpers/gateway.ts';

const notAsked = async (): Promise<never> => {
  throw new Error('the e-ID provider is not asked here');
};
/** An e-ID provider of the bank's own. */
const bankEid: EidProvider = { start: notAsked, collect: notAsked, cancel: notAsked };

/** The routes of the pretend e-ID app. */
const eidAppRoutes = (on: Gateway) => on.routes.filter((route) => / \/psu\/eid(\/|$)/.test(route));

let gateway: Gateway;
before(async () => {
  gateway = await startGateway();
});
after(() => gateway.close());

test('the built-in systems bring the recorded bookings and the e-ID app with its pages', () => {
  const context = serviceContext(gateway);
  assert.ok(context.recordedBookings !== undefined, 'the built-in ledger books an execution in one call');
  assert.ok(context.simulatedEid !== undefined, 'the built-in simulator brings its app');
  assert.deepEqual(eidAppRoutes(gateway), [
    'GET /psu/eid',
    'HEAD /psu/eid',
    'POST /psu/eid/open',
    'POST /psu/eid/identify',
    'POST /psu/eid/sign',
  ]);
});

test('a core banking system given books in three steps: no recorded bookings beside it', () => {
  const context = serviceContext(gateway, { coreBanking: builtInLedger(gateway.store, gateway.config) });
  assert.equal(context.recordedBookings, undefined);
  assert.ok(context.simulatedEid !== undefined, 'the simulator is still the e-ID provider');
});

test("a bank's e-ID provider brings no pretend app and no /psu/eid pages", async () => {
  const context = contextOf({ config: gateway.config, store: gateway.store, systems: { eid: bankEid } });
  assert.equal(context.simulatedEid, undefined);
  assert.ok(context.recordedBookings !== undefined, 'the ledger is still the core banking system');
  const other = await sibling(gateway, { systems: { eid: bankEid } });
  try {
    assert.deepEqual(eidAppRoutes(other), []);
  } finally {
    await other.close();
  }
});
