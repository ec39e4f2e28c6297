// What a TPP and a load balancer see while the gateway's database cannot answer (an outage, a failover
// under way): the API's 503 SERVICE_UNAVAILABLE and the token endpoint's 503 temporarily_unavailable,
// each with Retry-After, whole; and /readyz, which answers a state younger than STATE_MAX_AGE_MS
// without asking again.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpAnswer } from '@psd2-gateway/client';
import { STATE_MAX_AGE_MS } from '../../src/services/shared/system-health.ts';

/** A 503 with Retry-After whose body, given the text that names the call's correlation id, is `body`. */
function assertAway(answer: HttpAnswer<unknown>, body: (text: string) => unknown): void {
  const text = `The service cannot answer now; try again in 5 seconds (correlation id ${answer.headers.get('x-correlation-id')})`;
  assert.deepEqual(
    { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: answer.body },
    { status: 503, retryAfter: '5', body: body(text) },
  );
}

/** An API call's answer while the database is away: the API's error body. */
export function assertApiAway(answer: HttpAnswer<unknown>): void {
  assertAway(answer, (text) => ({
    httpCode: '503',
    httpMessage: 'Service Unavailable',
    moreInformation: text,
    tppMessages: [{ category: 'ERROR', code: 'SERVICE_UNAVAILABLE', text }],
  }));
}

/** The token endpoint's answer while the database is away: RFC 6749's error body. */
export function assertOAuthAway(answer: HttpAnswer<unknown>): void {
  assertAway(answer, (text) => ({ error: 'temporarily_unavailable', error_description: text }));
}

/** The status of GET path on base. */
export async function statusOf(base: string, path: string): Promise<number> {
  return (await fetch(`${base}${path}`)).status;
}

/** /readyz's status once it says `expected`, or what it says after the bound of a state's age has passed. */
export async function readiness(base: string, expected: number): Promise<number> {
  const until = performance.now() + STATE_MAX_AGE_MS + 1_000;
  let status = await statusOf(base, '/readyz');
  while (status !== expected && performance.now() < until) {
    await sleep(100);
    status = await statusOf(base, '/readyz');
  }
  return status;
}
