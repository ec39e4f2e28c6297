import assert from 'node:assert/strict';
import { test } from 'node:test';
import { animatedQrCode, autoStartLink, orderStateAt, pollOutcome } from '../../src/domain/eid.ts';

test('the animated QR code carries an HMAC-SHA256 of the seconds (vectors from openssl)', () => {
  assert.equal(
    animatedQrCode('67df3917-fa0d-44e5-b327-edcc928297f8', 'd28db9a7-4cde-429e-a983-359be676944c', 17),
    'bankid.67df3917-fa0d-44e5-b327-edcc928297f8.17.03642ea1c1249141a2f5706acf8cabdb474259afab830e4d94fb95a5229bbf6f',
  );
  assert.equal(
    animatedQrCode('t', 'secret', 0),
    'bankid.t.0.1779fd3337dd353e424d808d9190aff8f09e46a8cbbe6469079b2d7f0e246e37',
  );
  assert.equal(autoStartLink('abc'), 'bankid:///?autostarttoken=abc&redirect=null');
});

test('orders expire: 30 s to start, 3 minutes in all', () => {
  const pending = { status: 'pending', hintCode: 'outstandingTransaction' } as const;
  assert.deepEqual(orderStateAt(pending, 0, null, 29_999), pending);
  assert.deepEqual(orderStateAt(pending, 0, null, 30_000), { status: 'failed', hintCode: 'startFailed' });
  assert.deepEqual(orderStateAt(pending, 0, 10_000, 179_999), pending);
  assert.deepEqual(orderStateAt(pending, 0, 10_000, 180_000), {
    status: 'failed',
    hintCode: 'expiredTransaction',
  });
  const done = { status: 'complete', personalNumber: 'p' } as const;
  assert.deepEqual(orderStateAt(done, 0, 1, 999_999), done);
});

test('what the TPP sees of each order state', () => {
  assert.deepEqual(pollOutcome({ status: 'pending', hintCode: 'userSign' }), {
    kind: 'result',
    result: 'IN_PROGRESS',
  });
  assert.deepEqual(pollOutcome({ status: 'complete', personalNumber: 'p' }), { kind: 'complete' });
  assert.deepEqual(pollOutcome({ status: 'failed', hintCode: 'userCancel' }), {
    kind: 'result',
    result: 'USER_CANCEL',
  });
  assert.equal(
    (pollOutcome({ status: 'failed', hintCode: 'startFailed' }) as { error: string }).error,
    'intent_expired',
  );
  assert.equal(
    (pollOutcome({ status: 'failed', hintCode: 'expiredTransaction' }) as { error: string }).error,
    'intent_expired',
  );
  assert.equal(
    (pollOutcome({ status: 'failed', hintCode: 'certificateErr' }) as { error: string }).error,
    'mbid_error',
  );
});
