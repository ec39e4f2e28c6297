// Calendar dates in the bank's time zone: where a day begins and which day an instant ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addDays, dateIn, dayBefore, startOfDay } from '../../src/domain/dates.ts';

test('a day begins at its midnight in the zone, in winter, in summer and on the days the clocks change', () => {
  const cases: [string, string, string][] = [
    ['2026-11-26', 'Europe/Stockholm', '2026-11-25T23:00:00.000Z'],
    ['2026-07-01', 'Europe/Stockholm', '2026-06-30T22:00:00.000Z'],
    ['2026-03-29', 'Europe/Stockholm', '2026-03-28T23:00:00.000Z'],
    ['2026-03-30', 'Europe/Stockholm', '2026-03-29T22:00:00.000Z'],
    ['2026-10-25', 'Europe/Stockholm', '2026-10-24T22:00:00.000Z'],
    ['2026-10-26', 'Europe/Stockholm', '2026-10-25T23:00:00.000Z'],
    ['2026-11-26', 'UTC', '2026-11-26T00:00:00.000Z'],
    ['2026-11-26', 'America/New_York', '2026-11-26T05:00:00.000Z'],
    ['2026-11-26', 'Asia/Kolkata', '2026-11-25T18:30:00.000Z'],
    ['2026-11-26', 'Pacific/Kiritimati', '2026-11-25T10:00:00.000Z'],
    // Santiago moves its clocks at midnight: in September 00:00 does not exist (the day begins at 01:00,
    // -03); in April 00:00 (-03) goes back to 23:00 (-04), and the day begins at the second midnight.
    ['2026-09-06', 'America/Santiago', '2026-09-06T04:00:00.000Z'],
    ['2026-04-05', 'America/Santiago', '2026-04-05T04:00:00.000Z'],
  ];
  for (const [day, zone, instant] of cases) {
    const start = startOfDay(day, zone);
    assert.equal(start.toISOString(), instant, `${day} in ${zone}`);
    assert.equal(dateIn(start, zone), day, `${day} in ${zone} has begun`);
    assert.equal(
      dateIn(new Date(start.getTime() - 1), zone),
      addDays(day, -1),
      `${day} in ${zone}: not before`,
    );
    assert.equal(dayBefore(start, zone), addDays(day, -1));
    assert.equal(dayBefore(new Date(start.getTime() + 1), zone), day);
  }
});
