// The sandbox clock as a TPP moves it (POST /sandbox/clock), with the app's client credentials token.
import type { TppClient } from '@psd2-gateway/client';

export interface ClockAnswer {
  readonly status: number;
  readonly body: unknown;
}

export async function advanceClock(client: TppClient, token: string, body: unknown): Promise<ClockAnswer> {
  const answer = await client.request('POST', '/sandbox/clock', {
    headers: { Authorization: `Bearer ${token}` },
    json: body,
  });
  return { status: answer.status, body: answer.body };
}

export async function readClock(client: TppClient, token: string): Promise<ClockAnswer> {
  const answer = await client.sandboxClock(token);
  return { status: answer.status, body: answer.body };
}

/** The clock's time, checked to be `offsetMs` ahead of real time (within the test's own run time). */
export function aheadBy(body: unknown, offsetMs: number, before: number, after = Date.now()): boolean {
  const now = Date.parse((body as { now: string }).now);
  return now >= before + offsetMs && now <= after + offsetMs;
}
