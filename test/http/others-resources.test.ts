// No existence oracle (issue 37): a resource that is not the caller's answers exactly as an id that does
// not exist, status and whole body, for payments, payments of a basket, baskets, account consents,
// accounts, card accounts and apps. The bodies carry no per-request value: they are compared whole.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TppClient } from '@psd2-gateway/client';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { FORBIDDEN, NOT_FOUND } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const DOMESTIC_PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const NO_PAYMENT = NOT_FOUND({
  code: 'RESOURCE_UNKNOWN',
  path: 'paymentId',
  text: 'There is no payment with this paymentId',
});
const HEADERS = { 'TPP-Request-ID': 'r-1', 'TPP-Transaction-ID': 't-1', Accept: 'application/json' };

const whole = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });

let gateway: Gateway;
let mine: TppClient;
let theirs: TppClient;
before(async () => {
  gateway = await startGateway();
  mine = gateway.client;
  theirs = await gateway.addApp('Their app');
});
after(() => gateway.close());

/** Both answers, whole, equal each other and the answer to an unknown id. */
function assertSame(
  answers: { theirs: { status: number; body: unknown }; unknown: { status: number; body: unknown } },
  expected: { status: number; body: unknown },
) {
  assert.deepEqual(whole(answers.theirs), whole(answers.unknown));
  assert.deepEqual(whole(answers.theirs), expected);
}

async function initiated(client: TppClient): Promise<string> {
  const answer = await client.initiate(await client.clientCredentialsToken(), {
    path: DOMESTIC_PATH,
    body: domestic(),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.paymentId;
}

describe('payments and baskets', () => {
  test("another app's payment: status and cancel answer as an unknown payment id", async () => {
    const token = await mine.clientCredentialsToken();
    const their = await initiated(theirs);
    const unknown = randomUUID();
    assertSame(
      {
        theirs: await mine.status(DOMESTIC, their, token, 'SE'),
        unknown: await mine.status(DOMESTIC, unknown, token, 'SE'),
      },
      NO_PAYMENT,
    );
    const cancel = (paymentId: string) =>
      mine.request('DELETE', `/psd2/v1/payments/${DOMESTIC}/${paymentId}`, {
        headers: mine.tppHeaders(token),
      });
    assertSame({ theirs: await cancel(their), unknown: await cancel(unknown) }, NO_PAYMENT);
  });

  test("a payment of another app's basket, read with a PSU token, answers as an unknown id (its basket unnamed)", async () => {
    const basket = await theirs.baskets.initiate(await theirs.clientCredentialsToken(), [
      { ...domestic(), paymentProduct: DOMESTIC, tppPaymentReference: 'rent' },
    ]);
    assert.equal(basket.status, 200, JSON.stringify(basket.body));
    const member = basket.body.payments[0]!.paymentId;
    const myPsuToken = (await mine.authorizeScope(`PIS:${await initiated(mine)}`)).access_token;
    assertSame(
      {
        theirs: await mine.status(DOMESTIC, member, myPsuToken, 'SE'),
        unknown: await mine.status(DOMESTIC, randomUUID(), myPsuToken, 'SE'),
      },
      NO_PAYMENT,
    );
    // The basket's own id is no payment id: as unknown as any other.
    const token = await mine.clientCredentialsToken();
    assertSame(
      {
        theirs: await mine.status(DOMESTIC, basket.body.signingBaskedId, token, 'SE'),
        unknown: await mine.status(DOMESTIC, randomUUID(), token, 'SE'),
      },
      NO_PAYMENT,
    );
  });
});

describe('account information', () => {
  test("another app's consent answers as an unknown consent id", async () => {
    const created = await theirs.createConsent(await theirs.clientCredentialsToken('AIS'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const ais = await mine.clientCredentialsToken('AIS');
    const expected = FORBIDDEN({ code: 'CONSENT_UNKNOWN', text: 'The consent is not one of this app' });
    assertSame(
      {
        theirs: await mine.consents.read(created.body.consentId, ais),
        unknown: await mine.consents.read(randomUUID(), ais),
      },
      expected,
    );
    assertSame(
      {
        theirs: await mine.consents.delete(created.body.consentId, ais),
        unknown: await mine.consents.delete(randomUUID(), ais),
      },
      expected,
    );
  });

  test("another PSU's account and card account answer as unknown ids", async () => {
    const created = await mine.createConsent(await mine.clientCredentialsToken('AIS'));
    const token = (await mine.authorizeScope(`AIS:${created.body.consentId}`)).access_token;
    const read = (path: string) => mine.read(path, token);
    const noAccount = NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no such account' });
    for (const suffix of ['', '/balances', '/transactions']) {
      assertSame(
        {
          theirs: await read(`/psd2/v1/accounts/${ACCOUNTS.agda.accountId}${suffix}`),
          unknown: await read(`/psd2/v1/accounts/${randomUUID()}${suffix}`),
        },
        noAccount,
      );
    }
    assertSame(
      {
        theirs: await read('/psd2/v1/card-accounts/b7c8d9e0-0000-4000-8000-000000000002'),
        unknown: await read(`/psd2/v1/card-accounts/${randomUUID()}`),
      },
      NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no such card account' }),
    );
  });
});

describe('onboarding', () => {
  /** A sandbox TPP (no certificate) and its admin token. */
  async function enrolled(): Promise<{ tppId: string; token: string }> {
    const answer = await mine.request<{ clientId: string }>('POST', '/psd2/v1/third-parties', {
      headers: HEADERS,
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const tppId = answer.body.clientId;
    const token = await mine.request<{ access_token: string }>('POST', '/oauth2/token/1.0', {
      form: { grant_type: 'client_credentials', scope: 'PSD2-ADMIN', client_id: tppId },
    });
    return { tppId, token: token.body.access_token };
  }

  function subscribe(tpp: { tppId: string; token: string }, body: unknown) {
    return mine.request<{ clientId: string }>('POST', '/psd2/v1/subscriptions', {
      headers: {
        ...HEADERS,
        'TPP-Request-ID': randomUUID(),
        'X-Gateway-Client-Id': tpp.tppId,
        Authorization: `Bearer ${tpp.token}`,
      },
      json: body,
    });
  }

  test("another TPP's app answers a subscription as an unknown client id", async () => {
    const [one, other] = [await enrolled(), await enrolled()];
    const registered = await subscribe(other, {
      app: { name: 'Theirs', description: '', oauthRedirectURI: 'http://localhost:8080/cb' },
      product: { name: 'payments' },
    });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    const product = { name: 'accounts' };
    assertSame(
      {
        theirs: await subscribe(one, { clientId: registered.body.clientId, product }),
        unknown: await subscribe(one, { clientId: randomUUID().replaceAll('-', ''), product }),
      },
      NOT_FOUND({ code: 'RESOURCE_UNKNOWN', path: 'clientId', text: 'clientId names no app of this TPP' }),
    );
  });
});
