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
  const value = (path: string) => ({ path, inName: false });
  assert.deepEqual(unstorableAt({ a: 'x', b: { c: ['ok', { d: 'N\u0000L' }] } }, ''), value('b.c.1.d'));
  // A name: where the member is, never the name itself.
  assert.deepEqual(unstorableAt({ a: { 'k\ud800': 1 } }, ''), { path: 'a', inName: true });
  assert.deepEqual(unstorableAt({ 'k\u0000': 1 }, ''), { path: '', inName: true });
  assert.equal(unstorableAt({ a: 'ok', b: 2, c: null, d: [true] }, ''), undefined);
  assert.deepEqual(unstorableAt('\udc00', 'name'), value('name'));
  assert.deepEqual(unstorableAt({ first: 'x\u0000', second: 'y\u0000' }, 'body'), value('body.first'));
  // Document order: a deeper member before a later sibling.
  assert.deepEqual(unstorableAt({ a: { b: { c: '\u0000' } }, d: '\u0000' }, ''), value('a.b.c'));
  assert.equal(unstorableAt({ pair: 'Tack \ud83d\ude00' }, ''), undefined);
});

/** `levels` arrays inside each other around `inner`, built without recursion. */
function nested(levels: number, inner: unknown): unknown {
  let value = inner;
  for (let level = 0; level < levels; level++) value = [value];
  return value;
}

test('no depth of input overflows the walks (issue 37)', () => {
  // JSON.parse builds such a value from 400 kB of text; the walk went down one call per level.
  const deep = nested(200_000, 'N\u0000L');
  assert.deepEqual(unstorableAt(deep, ''), { path: '0.'.repeat(200_000).slice(0, -1), inName: false });
  assert.equal(unstorableAt(nested(200_000, 'ok'), ''), undefined);
  // The set-aside goes only where the schema goes: a body deeper than its schema is not walked.
  const body = { payments: nested(200_000, {}), free: { x: nested(200_000, 1) } };
  assert.deepEqual(setAsideUnknown(schema, body), []);
});
