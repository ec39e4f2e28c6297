import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  parseBic,
  parseBritishAccount,
  parseGiro,
  parseIban,
  parseSwedishAccount,
} from '../../src/domain/account-identifiers.ts';
import { addDays, dateIn, isIsoDate } from '../../src/domain/dates.ts';
import {
  constantEquals,
  fingerprint,
  hashSecret,
  newSecret,
  pkceChallenge,
} from '../../src/domain/secrets.ts';

test('Swedish accounts: the bank own clearing numbers 6000-6999', () => {
  assert.deepEqual(parseSwedishAccount('6000 123456789'), {
    ok: true,
    value: {
      clearingNumber: '6000',
      accountNumber: '123456789',
      bankName: 'Handelsbanken',
      ownBank: true,
      bban: '6000123456789',
    },
  });
  assert.deepEqual(parseSwedishAccount('1234501', '5000'), {
    ok: true,
    value: {
      clearingNumber: '5000',
      accountNumber: '1234501',
      bankName: 'SEB',
      ownBank: false,
      bban: '50001234501',
    },
  });
  assert.equal(parseSwedishAccount('6000123456788').ok, false);
  assert.equal(parseSwedishAccount('abc').ok, false);
});

test('Swedish accounts: an answer given again is the same, and nobody can change it', () => {
  const first = parseSwedishAccount('6000-123456789');
  assert.deepEqual(first, {
    ok: true,
    value: {
      clearingNumber: '6000',
      accountNumber: '123456789',
      bankName: 'Handelsbanken',
      ownBank: true,
      bban: '6000123456789',
    },
  });
  assert.deepEqual(parseSwedishAccount('6000-123456789'), first);
  assert.throws(() => {
    (first as { ok: boolean }).ok = false;
  }, TypeError);
  if (first.ok)
    assert.throws(() => {
      (first.value as { bban: string }).bban = 'x';
    }, TypeError);
  assert.deepEqual(parseSwedishAccount('6000-123456789'), first);
  const refused = { ok: false, reason: 'is not a valid Swedish clearing number and account number' };
  assert.deepEqual(parseSwedishAccount('6000-123456788'), refused);
  assert.deepEqual(parseSwedishAccount('6000-123456788'), refused);
  // Longer than any account number: answered, not kept.
  assert.deepEqual(parseSwedishAccount('1'.repeat(80)), refused);
});

test('IBANs: check digits, own bank, SEPA', () => {
  assert.deepEqual(parseIban('nl46 hand 0254 6789 12'), {
    ok: true,
    value: { iban: 'NL46HAND0254678912', country: 'NL', bankCode: 'HAND', ownBank: true, sepa: true },
  });
  assert.deepEqual(parseIban('DE89370400440532013000'), {
    ok: true,
    value: {
      iban: 'DE89370400440532013000',
      country: 'DE',
      bankCode: '37040044',
      ownBank: false,
      sepa: true,
    },
  });
  assert.equal(parseIban('DE89370400440532013001').ok, false);
  assert.equal(parseIban('').ok, false);
});

test('British sort code and account number', () => {
  assert.deepEqual(parseBritishAccount('40-51-62 12345678'), {
    ok: true,
    value: { sortCode: '405162', accountNumber: '12345678', ownBank: true, bban: '40516212345678' },
  });
  assert.equal(parseBritishAccount('4051621234567').ok, false);
});

test('BIC', () => {
  assert.deepEqual(parseBic('handsess'), { ok: true, value: 'HANDSESS' });
  assert.equal(parseBic('HAND-SESS').ok, false);
});

test('dates', () => {
  assert.equal(isIsoDate('2028-02-29'), true);
  assert.equal(isIsoDate('2027-02-29'), false);
  assert.equal(addDays('2026-12-31', 1), '2027-01-01');
  // 23:30 UTC on 21 November is already 22 November in Stockholm.
  assert.equal(dateIn(new Date('2026-11-21T23:30:00Z'), 'Europe/Stockholm'), '2026-11-22');
  // The answer is kept per minute and time zone: the last millisecond of a day, then the first.
  assert.equal(dateIn(new Date('2026-11-21T22:59:59.999Z'), 'Europe/Stockholm'), '2026-11-21');
  assert.equal(dateIn(new Date('2026-11-21T22:59:00.000Z'), 'Europe/Stockholm'), '2026-11-21');
  assert.equal(dateIn(new Date('2026-11-21T23:00:00.000Z'), 'Europe/Stockholm'), '2026-11-22');
  assert.equal(dateIn(new Date('2026-11-21T23:00:00.000Z'), 'Europe/London'), '2026-11-21');
  // Summer time: 22:00 UTC on 28 June is midnight in Stockholm.
  assert.equal(dateIn(new Date('2026-06-28T21:59:59Z'), 'Europe/Stockholm'), '2026-06-28');
  assert.equal(dateIn(new Date('2026-06-28T22:00:00Z'), 'Europe/Stockholm'), '2026-06-29');
});

test('secrets: 256 random bits, SHA-256 hashes, constant-time equality, PKCE vector', () => {
  const secret = newSecret();
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(newSecret(), secret);
  assert.equal(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(constantEquals('same', 'same'), true);
  assert.equal(constantEquals('same', 'sane'), false);
  // RFC 7636 appendix B.
  assert.equal(
    pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'),
    'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  );
  assert.equal(fingerprint({ b: 1, a: [1, { d: 2, c: 3 }] }), fingerprint({ a: [1, { c: 3, d: 2 }], b: 1 }));
  assert.notEqual(fingerprint({ a: '1' }), fingerprint({ a: 1 }));
  // Stored fingerprints must keep matching: the canonical form is fixed (sorted keys, no undefined).
  assert.equal(
    fingerprint({ b: 1, a: [1, { d: 2, c: 3, e: undefined }, null, 'x"y'], ü: {}, '': [] }),
    '725ed92a7b2ed97b6bf6e1ba215bc330b9cd749b5fe3b94703ac9f4784bb26d3',
  );
  // Values that are not plain JSON data take the piece-by-piece path: the same text as always.
  for (const [value, pinned] of [
    [
      { '10': 'a', '9': [Number.NaN, undefined], x: { '1': true }, b: 'é' },
      'e46fdf34b84682dfdca8bcc07f1793765361525d4f81dfce7276ffcdf4dd336f',
    ],
    [
      JSON.parse('{"__proto__": {"z": 1, "a": 2}, "k": [1, 2]}'),
      '83edfab27b785bc661641a79dc63de8443669a44095e03a5ffcb5adc8f10c136',
    ],
    [
      {
        when: new Date(0),
        f: () => 1,
        list: [undefined, null, Number.POSITIVE_INFINITY],
        nested: Object.create(null),
      },
      'abba456d6fe5780823070e3be02e334a45563c8069b10cf78aff7286f3661ba7',
    ],
    [[undefined, 'x', { y: undefined }], 'a25191365d20a47001d0db920505d04ef9f00328d5199f8ee1f5694266b7397f'],
  ] as const) {
    assert.equal(fingerprint(value), pinned, JSON.stringify(value));
  }
  // Small objects are sorted by insertion, large ones by Array.sort: the same order (UTF-16 code units,
  // not the locale's: 'B' < 'a' < 'é' < '😀'), and the same canonical text, which for keys already in
  // that order is JSON's.
  for (const count of [3, 16, 17, 40]) {
    const names = Array.from(
      { length: count },
      (_, index) => ['a', 'B', 'é', '😀', 'Z', '_'][index % 6]! + index,
    );
    const sorted = [...names].sort();
    const ascending = Object.fromEntries(sorted.map((name) => [name, { y: 1, x: [name] }]));
    const descending = Object.fromEntries([...sorted].reverse().map((name) => [name, { x: [name], y: 1 }]));
    const json = JSON.stringify(Object.fromEntries(sorted.map((name) => [name, { x: [name], y: 1 }])));
    assert.equal(fingerprint(descending), fingerprint(ascending), `${count} keys`);
    assert.equal(fingerprint(ascending), createHash('sha256').update(json).digest('hex'), `${count} keys`);
  }
});

test('Bankgiro and Plusgiro numbers with their check digit', () => {
  assert.deepEqual(parseGiro('BG', '505-0109'), { ok: true, value: '5050109' });
  assert.deepEqual(parseGiro('BG', '5555-5551'), { ok: true, value: '55555551' });
  assert.deepEqual(parseGiro('BG', '505-0108'), { ok: false, reason: 'is not a valid Bankgiro number' });
  assert.deepEqual(parseGiro('BG', '12345'), { ok: false, reason: 'is not a valid Bankgiro number' });
  assert.deepEqual(parseGiro('PG', '901234-5'), { ok: true, value: '9012345' });
  assert.deepEqual(parseGiro('PG', '901234-6'), { ok: false, reason: 'is not a valid Plusgiro number' });
});
