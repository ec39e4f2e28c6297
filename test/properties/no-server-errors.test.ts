// Properties: whatever body and headers a client sends to initiation, the token endpoint and the
// account-information calls, the answer is never a 5xx, and every error is in its documented shape.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { ACCOUNTS, domestic, sepa } from '../helpers/payments.ts';

let gateway: Gateway;
let token: string;
before(async () => {
  gateway = await startGateway();
  token = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

const PATHS = [
  '/psd2/v1/payments/sepa-credit-transfer',
  '/psd2/v1/payments/handelsbanken-domestic-credit-transfer',
  '/psd2/se/v2/payments/private/single/other-bank-domestic-credit-transfer',
  '/psd2/se/v2/payments/corporate/single/sepa-credit-transfer',
  '/psd2/v1/payments/%00',
];

/**
 * One character of a generated string: mostly printable ASCII, also any code point, and the ones a
 * database cannot store (U+0000, unpaired surrogates).
 */
const UNIT = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\udc00', '\ud83d\ude00') },
);
const anyJson = () => fc.jsonValue({ stringUnit: UNIT });
const anyString = (maxLength: number) => fc.string({ unit: UNIT, maxLength });

/** Valid bodies with parts replaced by arbitrary JSON: close enough to reach the deeper rules. */
const mutatedBody = fc
  .tuple(
    fc.constantFrom(domestic(), sepa(ACCOUNTS.nl.iban!)),
    fc.array(
      fc.tuple(
        fc.constantFrom(
          'debtorAccount',
          'creditorAccount',
          'instructedAmount',
          'creditor',
          'requestedExecutionDate',
          'remittanceInformationUnstructured',
          'chargeBearer',
          'debtorAccount.value',
          'instructedAmount.amount',
          'creditorAccount.accountType',
        ),
        anyJson(),
      ),
      { maxLength: 3 },
    ),
  )
  .map(([body, changes]) => {
    const copy = structuredClone(body) as Record<string, unknown>;
    for (const [path, value] of changes) {
      const [head, tail] = path.split('.') as [string, string | undefined];
      if (tail === undefined) copy[head] = value;
      else if (typeof copy[head] === 'object' && copy[head] !== null)
        (copy[head] as Record<string, unknown>)[tail] = value;
    }
    return copy;
  });

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('SE', 'NL', 'GB', 'BANK', '5566778899', ''),
);

function isDocumentedError(body: unknown): boolean {
  const value = body as {
    httpCode?: unknown;
    httpMessage?: unknown;
    moreInformation?: unknown;
    tppMessages?: unknown;
  };
  return (
    typeof value.httpCode === 'string' &&
    typeof value.httpMessage === 'string' &&
    typeof value.moreInformation === 'string' &&
    Array.isArray(value.tppMessages) &&
    value.tppMessages.length > 0
  );
}

test('initiation: random bodies and headers never give a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...PATHS),
      fc.oneof(mutatedBody, anyJson()),
      fc.record(
        {
          country: headerValue,
          'psu-corporate-id': headerValue,
          'psu-corporate-id-type': headerValue,
          'tpp-request-id': headerValue,
        },
        { requiredKeys: [] },
      ),
      async (path, body, extra) => {
        const headers: Record<string, string> = {
          'x-gateway-client-id': gateway.sandboxApp.clientId,
          'tpp-request-id': `r-${Math.random()}`,
          'tpp-transaction-id': 't',
          authorization: `Bearer ${token}`,
        };
        for (const [name, value] of Object.entries(extra))
          if (/^[\x20-\x7e]*$/.test(value)) headers[name] = value;
        const answer = await call(gateway.app, 'POST', path, { headers, json: body });
        assert.ok(answer.status < 500, `${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status >= 400) assert.ok(isDocumentedError(answer.body), JSON.stringify(answer.body));
      },
    ),
    { numRuns: 300 },
  );
});

test('initiation: any text in a valid payment never gives a 5xx', async () => {
  // Valid but for the text, so that it reaches the database: every character, also U+0000 and
  // unpaired surrogates, which PostgreSQL cannot store.
  await fc.assert(
    fc.asyncProperty(anyString(14), async (message) => {
      const answer = await call(
        gateway.app,
        'POST',
        '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        {
          headers: { ...gateway.client.tppHeaders(token), 'tpp-request-id': `r-${Math.random()}` },
          json: domestic({ remittanceInformationUnstructured: message }),
        },
      );
      assert.ok(answer.status < 500, `${answer.status} ${JSON.stringify(answer.body)}`);
      if (answer.status >= 400) assert.ok(isDocumentedError(answer.body), JSON.stringify(answer.body));
    }),
    { numRuns: 200 },
  );
});

test('token endpoint: random forms never give a 5xx, errors are RFC 6749', async () => {
  const parameter = fc.constantFrom(
    'grant_type',
    'scope',
    'client_id',
    'code',
    'redirect_uri',
    'code_verifier',
    'refresh_token',
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.tuple(
          parameter,
          fc.oneof(
            anyString(60),
            fc.constantFrom('client_credentials', 'authorization_code', 'PIS', gateway.sandboxApp.clientId),
          ),
        ),
        { maxLength: 6 },
      ),
      fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'multipart/form-data'),
      async (pairs, contentType) => {
        const payload = new URLSearchParams(pairs).toString();
        const answer = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
          headers: { 'content-type': contentType },
          payload,
        });
        assert.ok(answer.status < 500, `${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status !== 200) {
          const body = answer.body as { error?: unknown; error_description?: unknown };
          assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
          assert.equal(typeof body.error, 'string');
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('account information: random consent bodies, PSU-IDs and read queries never give a 5xx', async () => {
  const ais = await gateway.client.clientCredentialsToken('AIS');
  const created = await gateway.client.createConsent(ais);
  const psuToken = (await gateway.client.authorizeScope(`AIS:${created.body.consentId}`)).access_token;
  const queryValue = fc.oneof(
    anyString(12),
    fc.constantFrom('2026-01-01', '2026-02-30', 'true', 'false', '', '9999-12-31'),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.record(
          {
            access: fc.oneof(fc.constant('ALL_ACCOUNTS'), anyJson()),
            validUntil: fc.oneof(queryValue, anyJson()),
            frequencyPerDay: fc.oneof(fc.integer({ min: -2, max: 6 }), anyJson()),
          },
          { requiredKeys: [] },
        ),
        anyJson(),
      ),
      headerValue,
      fc.constantFrom(
        '/psd2/v1/accounts',
        `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}`,
        `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}/transactions`,
        '/psd2/v1/card-accounts/b7c8d9e0-0000-4000-8000-000000000001/transactions',
        '/psd2/gb/v1/accounts/%00',
        `/psd2/v1/consents/${created.body.consentId}`,
      ),
      fc.dictionary(fc.constantFrom('dateFrom', 'dateTo', 'withBalance', 'x'), queryValue, { maxKeys: 3 }),
      async (body, psuId, path, query) => {
        const headers = gateway.client.tppHeaders(ais);
        if (/^[\x20-\x7e]*$/.test(psuId) && psuId !== '') headers['PSU-ID'] = psuId;
        const consent = await call(gateway.app, 'POST', '/psd2/v1/consents', { headers, json: body });
        assert.ok(consent.status < 500, `${consent.status} ${JSON.stringify(consent.body)}`);
        if (consent.status >= 400) assert.ok(isDocumentedError(consent.body), JSON.stringify(consent.body));
        const read = await call(gateway.app, 'GET', `${path}?${new URLSearchParams(query)}`, {
          headers: gateway.client.tppHeaders(psuToken),
        });
        assert.ok(read.status < 500, `${read.status} ${JSON.stringify(read.body)}`);
        if (read.status >= 400) assert.ok(isDocumentedError(read.body), JSON.stringify(read.body));
      },
    ),
    { numRuns: 200 },
  );
});
