import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatAmount, parseAmount } from '../../src/domain/money.ts';

test('amounts as strings and numbers become minor units', () => {
  const cases: [string | number, string, number][] = [
    ['125.50', 'SEK', 12550],
    ['125.5', 'SEK', 12550],
    ['0.01', 'EUR', 1],
    [0.1, 'SEK', 10],
    [1000, 'JPY', 1000],
    ['007', 'GBP', 700],
    ['999999999999.99', 'SEK', 99999999999999],
  ];
  for (const [input, currency, minor] of cases)
    assert.deepEqual(parseAmount(input, currency), { ok: true, money: { currency, minor } });
});

test('bad amounts are refused with a reason', () => {
  const cases: [string | number, string, string][] = [
    ['1.001', 'SEK', 'SEK takes at most 2 decimals'],
    ['1.5', 'JPY', 'JPY takes no decimals'],
    ['0', 'SEK', 'must be greater than zero'],
    ['0.00', 'SEK', 'must be greater than zero'],
    ['-1', 'SEK', 'must be a positive decimal amount such as "125.50"'],
    ['1e3', 'SEK', 'must be a positive decimal amount such as "125.50"'],
    [1e21, 'SEK', 'must be a positive decimal amount such as "125.50"'],
    [Number.NaN, 'SEK', 'must be a finite number'],
    ['1 000', 'SEK', 'must be a positive decimal amount such as "125.50"'],
    ['1234567890123', 'SEK', 'must have at most 12 digits before the decimal point'],
    ['1', 'XXX', 'is in a currency that is not supported'],
  ];
  for (const [input, currency, reason] of cases)
    assert.deepEqual(parseAmount(input, currency), { ok: false, reason }, String(input));
});

test('property: formatting and parsing are inverse for every amount in range', () => {
  fc.assert(
    fc.property(
      fc
        .constantFrom('SEK', 'EUR', 'GBP', 'JPY')
        .chain((currency) =>
          fc.tuple(
            fc.integer({ min: 1, max: currency === 'JPY' ? 999_999_999_999 : 99_999_999_999_999 }),
            fc.constant(currency),
          ),
        ),
      ([minor, currency]) => {
        const text = formatAmount({ currency, minor });
        const parsed = parseAmount(text, currency);
        assert.deepEqual(parsed, { ok: true, money: { currency, minor } });
      },
    ),
  );
});

test('formatAmount pads to the currency decimals', () => {
  assert.equal(formatAmount({ currency: 'SEK', minor: 5 }), '0.05');
  assert.equal(formatAmount({ currency: 'JPY', minor: 5 }), '5');
});

test('formatAmount keeps the sign of what is owed', () => {
  assert.equal(formatAmount({ currency: 'SEK', minor: -5 }), '-0.05');
  assert.equal(formatAmount({ currency: 'SEK', minor: -845000 }), '-8450.00');
  assert.equal(formatAmount({ currency: 'JPY', minor: -5 }), '-5');
});
