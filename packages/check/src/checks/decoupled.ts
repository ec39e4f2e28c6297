// Step 3, decoupled (spec rows 9-11, Sweden only): start, poll the token link no sooner than
// sleep_time apart until COMPLETE (API-NOTES: IN_PROGRESS meanwhile), execute with that token; cancel;
// the errors in the OAuth shape (API-NOTES "Decoupled").
import { setTimeout as sleep } from 'node:timers/promises';
import { type Check, type CheckContext, Deviation, Skip } from '../check.ts';
import { expectOAuthError } from '../error-shapes.ts';
import {
  at,
  expectAccessToken,
  expectArray,
  expectInteger,
  expectOneOf,
  expectString,
  jsonBody,
  shown,
} from '../expect.ts';
import { OTHER_BANK, otherBankBody, SE_V2_PRIVATE } from '../fixtures.ts';
import { execute, setupPayment } from '../flow.ts';
import { type Answer, send } from '../http.ts';
import { EXECUTED, expectPaymentStatus } from './execution.ts';

const INIT = '/decoupled/eid/initAuthorization/2.0';
/** Polls before the checker gives up on a session that stays IN_PROGRESS. */
const MAX_POLLS = 10;

function init(
  context: CheckContext,
  paymentId: string,
  overrides: Record<string, unknown> = {},
): Promise<Answer> {
  return send(context, {
    method: 'POST',
    path: INIT,
    json: {
      client_id: context.options.clientId,
      scope: `PIS:${paymentId}`,
      psu_client_ip: context.options.psuIpAddress,
      bisa_same_device: true,
      ...overrides,
    },
  });
}

/** A link of the init answer: under the wanted URL, with a sessionId, allowing POST. */
function link(body: Record<string, unknown>, name: 'token' | 'cancel', wanted: string): string {
  const href = expectString(body, `_links.${name}.href`);
  if (!href.startsWith(`${wanted}?`) || !new URL(href).searchParams.get('sessionId')) {
    throw new Deviation(
      `_links.${name}.href ${wanted}?sessionId=<session_id>`,
      `_links.${name}.href ${shown(href)}`,
    );
  }
  if (!expectArray(body, `_links.${name}.hints.allow`).includes('POST')) {
    throw new Deviation(
      `_links.${name}.hints.allow ["POST"]`,
      `${shown(at(body, `_links.${name}.hints.allow`))}`,
    );
  }
  return href;
}

const post = (context: CheckContext, href: string) =>
  send(context, { method: 'POST', path: href, headers: { 'Content-Type': 'application/json' }, json: {} });

/** Waits sleep_time as the contract asks, within the run's time. */
async function wait(context: CheckContext, ms: number): Promise<void> {
  if (ms > context.remainingMs()) throw new Skip(`sleep_time ${ms} ms is more than the time left`);
  await sleep(ms);
}

export const decoupledChecks: readonly Check[] = [
  {
    id: 'decoupled.init',
    title: 'a decoupled authorization starts',
    ref: 'spec row 9 "200: decoupled initiation response"; Resources "auto_start_token ... qr_code, sleep_time, _links.token.href ... including a sessionId, hints.allow POST"',
    needs: ['clientToken', 'sePayment'],
    provides: ['decoupledSession'],
    async run(context) {
      const paymentId = await setupPayment(context, {
        path: `${SE_V2_PRIVATE}/${OTHER_BANK}`,
        body: otherBankBody(context.options),
      });
      const body = jsonBody(await init(context, paymentId), 200);
      if (typeof body.auto_start_token !== 'string' && typeof body.qr_code !== 'string') {
        throw new Deviation('auto_start_token or qr_code', `fields ${Object.keys(body).join(', ')}`);
      }
      const base = `${context.options.baseUrl}/decoupled/eid`;
      context.provide('decoupledSession', {
        paymentId,
        sleepTime: expectInteger(body, 'sleep_time'),
        tokenHref: link(body, 'token', `${base}/token/2.0`),
        cancelHref: link(body, 'cancel', `${base}/cancel/2.0`),
      });
    },
  },
  {
    id: 'decoupled.sleep-time',
    title: 'the sandbox asks for 2000 ms between polls',
    ref: 'spec Limits "Decoupled polling: wait at least sleep_time milliseconds ... (sandbox value 2000)"',
    needs: ['decoupledSession'],
    async run(context) {
      const { sleepTime } = context.fact('decoupledSession');
      if (sleepTime !== 2000) throw new Deviation('sleep_time: 2000', `sleep_time: ${sleepTime}`);
    },
  },
  {
    id: 'decoupled.cancel',
    title: 'an ongoing decoupled authorization can be cancelled',
    ref: 'spec row 11 "POST the _links.cancel.href URL: Cancels the ongoing authorization" (response shape: not shown)',
    needs: ['decoupledSession'],
    async run(context) {
      const other = jsonBody(await init(context, context.fact('decoupledSession').paymentId), 200);
      const answer = await post(
        context,
        link(other, 'cancel', `${context.options.baseUrl}/decoupled/eid/cancel/2.0`),
      );
      if (answer.status < 200 || answer.status > 299) throw new Deviation('2xx', `${answer.status}`);
    },
  },
  {
    id: 'decoupled.token',
    title: 'polling the token link after sleep_time ends COMPLETE with a PSU token',
    ref: 'spec row 10 "200: decoupled token response": result COMPLETE, access_token, token_type Bearer, expires_in; Limits "wait at least sleep_time"',
    needs: ['decoupledSession'],
    provides: ['decoupledToken'],
    async run(context) {
      const session = context.fact('decoupledSession');
      let sleepTime = session.sleepTime;
      for (let poll = 1; poll <= MAX_POLLS; poll += 1) {
        await wait(context, sleepTime);
        const body = jsonBody(await post(context, session.tokenHref), 200);
        if (expectOneOf(body, 'result', ['COMPLETE', 'IN_PROGRESS']) === 'COMPLETE') {
          context.provide('decoupledToken', { token: expectAccessToken(body), paymentId: session.paymentId });
          return;
        }
        sleepTime = typeof body.sleep_time === 'number' ? body.sleep_time : sleepTime;
      }
      throw new Deviation(
        `result COMPLETE within ${MAX_POLLS} polls`,
        `IN_PROGRESS after ${MAX_POLLS} polls`,
      );
    },
  },
  {
    id: 'decoupled.execute',
    title: 'the decoupled PSU token executes the payment',
    ref: 'spec step 3 "decoupled flow (Sweden only) yielding an access token", step 4 "TPP executes the payment with that access token"',
    needs: ['decoupledToken'],
    async run(context) {
      const { token, paymentId } = context.fact('decoupledToken');
      expectPaymentStatus(
        await execute(context, OTHER_BANK, paymentId, token),
        'paymentId',
        paymentId,
        EXECUTED,
      );
    },
  },
  {
    id: 'decoupled.unknown-client',
    title: 'a decoupled start for an unknown client_id is refused',
    ref: 'spec Resources Decoupled "client_id: App-id"; API-NOTES Decoupled "Errors (error field, 400): ... invalid_request, unauthorized_client"',
    needs: ['decoupledSession'],
    async run(context) {
      const answer = await init(context, context.fact('decoupledSession').paymentId, {
        client_id: 'no-such-app-0000',
      });
      expectOAuthError(answer, { status: 400, errors: ['unauthorized_client', 'invalid_request'] });
    },
  },
  {
    id: 'decoupled.unknown-scope',
    title: 'a decoupled start for no payment is refused',
    ref: 'spec Resources Decoupled "scope: PIS:<payment_id>"; API-NOTES Decoupled "Errors (error field, 400): ... invalid_request"',
    needs: ['decoupledSession'],
    async run(context) {
      expectOAuthError(await init(context, 'no-such-payment'), { status: 400, errors: ['invalid_request'] });
    },
  },
  {
    id: 'decoupled.missing-psu-client-ip',
    title: 'a decoupled start without psu_client_ip is refused',
    ref: 'spec Resources Decoupled "psu_client_ip ... Required: yes"; API-NOTES Decoupled "invalid_request"',
    needs: ['decoupledSession'],
    async run(context) {
      const answer = await init(context, context.fact('decoupledSession').paymentId, {
        psu_client_ip: undefined,
      });
      expectOAuthError(answer, { status: 400, errors: ['invalid_request'] });
    },
  },
  {
    id: 'decoupled.unknown-session',
    title: 'polling an unknown session is refused',
    ref: 'spec row 10 "POST the _links.token.href URL"; API-NOTES Decoupled "Errors (error field, 400): ... invalid_request"',
    needs: ['decoupledSession'],
    async run(context) {
      const answer = await post(
        context,
        `${context.options.baseUrl}/decoupled/eid/token/2.0?sessionId=no-such-session`,
      );
      expectOAuthError(answer, { status: 400, errors: ['invalid_request'] });
    },
  },
];
