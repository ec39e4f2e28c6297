// The sandbox clock's durations and the next bank day: what an advance may be, how an offset is written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextBankDay } from '../../src/domain/dates.ts';
import { formatOffset, MAX_OFFSET_MS, parseAdvance } from '../../src/domain/sandbox-clock.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

test('advances: days, hours and minutes, from PT1M to P400D', () => {
  const valid: [string, number][] = [
    ['P2D', 2 * DAY],
    ['PT36H', 36 * HOUR],
    ['PT1M', MINUTE],
    ['P1DT2H30M', DAY + 2 * HOUR + 30 * MINUTE],
    ['P400D', 400 * DAY],
    ['P399DT24H', 400 * DAY],
  ];
  for (const [text, ms] of valid) assert.equal(parseAdvance(text), ms, text);
  const invalid = ['', 'P', 'PT', 'P1DT', 'P0D', 'PT0M', 'P401D', 'P400DT1M', 'P1Y', 'P1M', 'P2W', 'PT30S'];
  for (const text of [...invalid, '-P1D', 'p2d', 'P2D ', 'P12345D', '2 days', 'P1.5D']) {
    assert.equal(parseAdvance(text), undefined, text);
  }
});

test('offsets are written as ISO 8601 durations of days, hours and minutes', () => {
  assert.equal(formatOffset(0), 'PT0S');
  assert.equal(formatOffset(2 * DAY), 'P2D');
  assert.equal(formatOffset(36 * HOUR), 'P1DT12H');
  assert.equal(formatOffset(3 * DAY + 1 * MINUTE), 'P3DT1M');
  assert.equal(formatOffset(5 * HOUR + 59_999), 'PT5H');
  assert.equal(formatOffset(MAX_OFFSET_MS), 'P1000D');
  for (const ms of [MINUTE, 7 * HOUR + 5 * MINUTE, 123 * DAY + 4 * HOUR]) {
    assert.equal(parseAdvance(formatOffset(ms)), ms, formatOffset(ms));
  }
});

test('the next bank day skips the weekend', () => {
  assert.equal(nextBankDay('2026-11-25'), '2026-11-26'); // Wednesday
  assert.equal(nextBankDay('2026-11-27'), '2026-11-30'); // Friday
  assert.equal(nextBankDay('2026-11-28'), '2026-11-30'); // Saturday
  assert.equal(nextBankDay('2026-11-29'), '2026-11-30'); // Sunday
  assert.equal(nextBankDay('2026-12-31'), '2027-01-01');
});
