// The two walks every request body takes before validation (issue 18 made them build paths only when
// they report one): the members set aside as unknown, and the first text a database cannot hold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unstorableAt } from '../../src/domain/text.ts';
import { setAsideUnknown } from '../../src/http/tolerant-body.ts';

const account = {
  type: 'object',
  additionalProperties: false,
  properties: { value: { type: 'string' }, accountType: { type: 'string' } },
} as const;
const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    debtorAccount: account,
    payments: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, properties: { creditorAccount: account } },
    },
    free: { type: 'object' },
  },
} as const;

test('unknown members are removed at any depth and named by their paths', () => {
  const body = {
    debtorAccount: { value: '6000', text: 'x', accountType: 'BBAN' },
    payments: [
      { creditorAccount: { value: '1' } },
      { creditorAccount: { value: '2', 'bad name!': 1 }, note: 'n' },
    ],
    free: { anything: 1 },
    campaign: 'c',
    toString: 'not a member of the contract',
  };
  // A name that does not read as a field name is counted (null), never echoed.
  assert.deepEqual(setAsideUnknown(schema, body), [
    'debtorAccount.text',
    null,
    'payments[1].note',
    'campaign',
    'toString',
  ]);
  assert.deepEqual(body, {
    debtorAccount: { value: '6000', accountType: 'BBAN' },
    payments: [{ creditorAccount: { value: '1' } }, { creditorAccount: { value: '2' } }],
    free: { anything: 1 },
  });
});

test('a body with only known members is left as it is', () => {
  const body = { debtorAccount: { value: '6000' }, payments: [{ creditorAccount: { value: '1' } }] };
  assert.deepEqual(setAsideUnknown(schema, body), []);
  assert.deepEqual(body, {
    debtorAccount: { value: '6000' },
    payments: [{ creditorAccount: { value: '1' } }],
  });
});

test('the first text a database cannot hold is found by its dotted path', () => {
  assert.equal(unstorableAt({ a: 'x', b: { c: ['ok', { d: 'N\u0000L' }] } }, ''), 'b.c.1.d');
  assert.equal(unstorableAt({ a: { 'k\ud800': 1 } }, ''), 'a.k\ud800');
  assert.equal(unstorableAt({ a: 'ok', b: 2, c: null, d: [true] }, ''), undefined);
  assert.equal(unstorableAt('\udc00', 'name'), 'name');
  assert.equal(unstorableAt({ first: 'x\u0000', second: 'y\u0000' }, 'body'), 'body.first');
  assert.equal(unstorableAt({ pair: 'Tack \ud83d\ude00' }, ''), undefined);
});
