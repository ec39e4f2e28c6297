// The payment state machine: the transition table, what is final, and when a TPP may cancel.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cancellable,
  canMove,
  isFinal,
  TRANSITIONS,
  type TransactionStatus,
} from '../../src/domain/payment.ts';

const ALL: readonly TransactionStatus[] = ['ACTC', 'ACCP', 'ACSC', 'ACCC', 'RJCT', 'CANC'];

test('every move there is, and no other', () => {
  const moves = ALL.flatMap((from) => ALL.filter((to) => canMove(from, to)).map((to) => `${from}->${to}`));
  assert.deepEqual(moves, [
    'ACTC->ACCP',
    'ACTC->ACSC',
    'ACTC->ACCC',
    'ACTC->RJCT',
    'ACTC->CANC',
    'ACCP->ACSC',
    'ACCP->ACCC',
    'ACCP->RJCT',
    'ACCP->CANC',
  ]);
  assert.deepEqual(Object.keys(TRANSITIONS).sort(), [...ALL].sort());
});

test('final statuses are those with no way out', () => {
  assert.deepEqual(ALL.filter(isFinal), ['ACSC', 'ACCC', 'RJCT', 'CANC']);
});

test('cancellable: waiting for execution, or for a later date; never while a booking is under way', () => {
  const today = '2026-11-23';
  const payment = (status: TransactionStatus, date: string | null, booking = false) => ({
    status,
    requestedExecutionDate: date,
    booking: booking ? { key: 'p', startedAt: new Date() } : null,
  });
  assert.equal(cancellable(payment('ACTC', null), today), true);
  assert.equal(cancellable(payment('ACTC', null, true), today), false);
  assert.equal(cancellable(payment('ACCP', '2026-11-24'), today), true);
  assert.equal(cancellable(payment('ACCP', '2026-11-23'), today), false, 'due today: being booked');
  assert.equal(cancellable(payment('ACCP', '2026-11-24', true), today), false);
  for (const status of ['ACSC', 'ACCC', 'RJCT', 'CANC'] as const) {
    assert.equal(cancellable(payment(status, null), today), false, status);
  }
});
