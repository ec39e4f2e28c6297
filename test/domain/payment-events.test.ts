// A payment's status moves by an event through nextStatus, which refuses exactly what the transition
// table forbids: every event from every status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  canMove,
  nextStatus,
  type PaymentEvent,
  TRANSITIONS,
  type TransactionStatus,
  TransitionRefused,
} from '../../src/domain/payment.ts';

const ALL = Object.keys(TRANSITIONS) as TransactionStatus[];
const TODAY = '2026-11-23';
const LATER = '2026-11-24';

const EVENTS: readonly {
  readonly name: string;
  readonly event: PaymentEvent;
  readonly to: TransactionStatus;
}[] = [
  { name: 'executed, due, booked', event: { type: 'executed', settlement: 'ACSC', on: TODAY }, to: 'ACSC' },
  {
    name: 'executed, due, within the bank',
    event: { type: 'executed', settlement: 'ACCC', on: TODAY },
    to: 'ACCC',
  },
  {
    name: 'executed, dated later',
    event: { type: 'executed', settlement: 'ACSC', on: '2026-11-20' },
    to: 'ACCP',
  },
  {
    name: 'rejected',
    event: { type: 'rejected' },
    to: 'RJCT',
  },
  { name: 'cancelled', event: { type: 'cancelled' }, to: 'CANC' },
];

test('nextStatus moves by the event where the table has the move, and refuses every other', () => {
  for (const from of ALL) {
    const payment = { id: 'p-1', status: from, requestedExecutionDate: TODAY };
    for (const { name, event, to } of EVENTS) {
      if (canMove(from, to)) {
        assert.equal(nextStatus(payment, event), to, `${from}, ${name}`);
        continue;
      }
      assert.throws(
        () => nextStatus(payment, event),
        (error: unknown) => {
          assert.ok(error instanceof TransitionRefused, `${from}, ${name}: a TransitionRefused`);
          assert.equal(error.message, `payment p-1 cannot move from ${from} to ${to}`);
          assert.deepEqual([error.from, error.to], [from, to]);
          return true;
        },
      );
    }
  }
});

test('every move of the table is some event’s', () => {
  const reached = new Set(
    ALL.flatMap((from) => EVENTS.filter(({ to }) => canMove(from, to)).map(({ to }) => `${from}->${to}`)),
  );
  assert.deepEqual(
    [...reached].sort(),
    ALL.flatMap((from) => TRANSITIONS[from].map((to) => `${from}->${to}`)).sort(),
  );
});

test('an execution waits for a later date, and books a payment due by the booking date', () => {
  const executed: PaymentEvent = { type: 'executed', settlement: 'ACSC', on: TODAY };
  const payment = (status: TransactionStatus, date: string | null) => ({
    id: 'p-2',
    status,
    requestedExecutionDate: date,
  });
  assert.equal(nextStatus(payment('ACTC', null), executed), 'ACSC');
  assert.equal(nextStatus(payment('ACTC', LATER), executed), 'ACCP');
  assert.equal(nextStatus(payment('ACCP', TODAY), executed), 'ACSC');
  assert.throws(
    () => nextStatus(payment('ACCP', LATER), executed),
    TransitionRefused,
    'not due yet: ACCP stays, which is no move',
  );
});
