// Confirmation of funds against the ledger's balance at request time: true up to the exact balance,
// false one cent above; by IBAN or by card; in another currency at the sandbox rate.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Gateway, setBalance, startGateway } from '../helpers/gateway.ts';
import { call, NOT_FOUND, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS } from '../helpers/payments.ts';

let gateway: Gateway;
let token: string;
before(async () => {
  gateway = await startGateway();
  token = await gateway.client.clientCredentialsToken();
  // Agda has exactly SEK 1,000.00; Tolvan's card account keeps its sandbox balance.
  await setBalance(gateway.store, ACCOUNTS.agda.accountId, 100000);
});
after(() => gateway.close());

function confirm(body: unknown) {
  return call(gateway.app, 'POST', '/psd2/v1/funds-confirmations', {
    headers: gateway.client.tppHeaders(token),
    json: body,
  });
}

test('true at the boundary amount, false one cent above', async () => {
  const iban = ACCOUNTS.agda.iban!;
  assert.deepEqual(
    statusAndBody(
      await confirm({
        account: { iban },
        payee: 'Shop AB',
        instructedAmount: { currency: 'SEK', amount: '1000.00' },
      }),
    ),
    { status: 200, body: { fundsAvailable: true } },
  );
  assert.deepEqual(
    statusAndBody(
      await confirm({ account: { iban }, instructedAmount: { currency: 'SEK', amount: '1000.01' } }),
    ),
    { status: 200, body: { fundsAvailable: false } },
  );
});

test('in another currency, converted at the sandbox rate', async () => {
  const iban = ACCOUNTS.agda.iban!;
  // EUR 87.33 is SEK 999.93 at 11.45; EUR 87.34 is SEK 1,000.04.
  assert.deepEqual(
    (await confirm({ account: { iban }, instructedAmount: { currency: 'EUR', amount: '87.33' } })).body,
    { fundsAvailable: true },
  );
  assert.deepEqual(
    (await confirm({ account: { iban }, instructedAmount: { currency: 'EUR', amount: '87.34' } })).body,
    { fundsAvailable: false },
  );
});

test('by card number', async () => {
  assert.deepEqual(
    (await confirm({ cardNumber: '4556 7712 3456 1234', instructedAmount: { currency: 'SEK', amount: 50 } }))
      .body,
    { fundsAvailable: true },
  );
  assert.deepEqual(
    statusAndBody(
      await confirm({ cardNumber: '4556770000009999', instructedAmount: { currency: 'SEK', amount: 50 } }),
    ),
    NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'The account or card is not one of the bank' }),
  );
});

test('by credit card: what is left of the credit limit (50,000.00 less 8,450.00 owed), at the boundary', async () => {
  const card = '5522 3300 1234 4321';
  assert.deepEqual(
    statusAndBody(
      await confirm({ cardNumber: card, instructedAmount: { currency: 'SEK', amount: '41550.00' } }),
    ),
    { status: 200, body: { fundsAvailable: true } },
  );
  assert.deepEqual(
    statusAndBody(
      await confirm({ cardNumber: card, instructedAmount: { currency: 'SEK', amount: '41550.01' } }),
    ),
    { status: 200, body: { fundsAvailable: false } },
  );
});

test('one of account and cardNumber, a real amount', async () => {
  const both = await confirm({
    account: { iban: ACCOUNTS.agda.iban! },
    cardNumber: '4556771234561234',
    instructedAmount: { currency: 'SEK', amount: '1' },
  });
  assert.equal(both.status, 400);
  const negative = await confirm({
    account: { iban: ACCOUNTS.agda.iban! },
    instructedAmount: { currency: 'SEK', amount: '-1' },
  });
  assert.equal(
    (negative.body as { tppMessages: { path: string }[] }).tppMessages[0]!.path,
    'instructedAmount.amount',
  );
});
