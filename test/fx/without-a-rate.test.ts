// What a TPP sees when the bank has no exchange rate: a cross-currency funds check or initiation is
// refused with a 400 in the API error shape; a payment initiated while there was a rate still answers
// its status (without the exchange), and its execution is refused without booking anything, until the
// rate is back. With ECB rates the exchange shown and the amount booked are the ECB's cross rate.
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { type LoadedRates, loadedRates, noRates } from '../../src/adapters/fx-rates/fx-rates.ts';
import { dateIn } from '../../src/domain/dates.ts';
import { type Gateway, queryRows, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS, crossCurrency, domestic } from '../helpers/payments.ts';

const PRODUCT = 'cross-currency-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
const today = () => dateIn(new Date(), 'Europe/Stockholm');

/** The status and body of a client's answer. */
function whole(answer: { status: number; body: unknown }) {
  return { status: answer.status, body: answer.body };
}

function fundsCheck(gateway: Gateway, token: string, currency: string, amount: string) {
  return call(gateway.app, 'POST', '/psd2/v1/funds-confirmations', {
    headers: gateway.client.tppHeaders(token),
    json: { account: { iban: ACCOUNTS.agda.iban }, instructedAmount: { currency, amount } },
  });
}

describe('FX_RATES=none', () => {
  let gateway: Gateway;
  let token: string;
  before(async () => {
    gateway = await startGateway({ systems: { rates: noRates } });
    token = await gateway.client.clientCredentialsToken();
  });
  after(() => gateway.close());

  test('a funds check in another currency than the account is refused; in its own it is answered', async () => {
    assert.deepEqual(
      statusAndBody(await fundsCheck(gateway, token, 'EUR', '10.00')),
      BAD_REQUEST({
        code: 'PARAMETER_NOT_SUPPORTED',
        path: 'instructedAmount.currency',
        text: 'the bank has no exchange rate for SEK/EUR today: an amount in EUR cannot be checked against this SEK account',
      }),
    );
    assert.deepEqual(statusAndBody(await fundsCheck(gateway, token, 'SEK', '10.00')), {
      status: 200,
      body: { fundsAvailable: true },
    });
  });

  test('a cross-currency payment is refused at initiation; one in the account currency is not', async () => {
    assert.deepEqual(
      whole(await gateway.client.initiate(token, { path: PATH, body: crossCurrency() })),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'instructedAmount.currency',
        text: 'the bank has no exchange rate for SEK/USD today: a payment in USD cannot be made from this SEK account',
      }),
    );
    const domesticPayment = await gateway.client.initiate(token, {
      path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      body: domestic(),
    });
    assert.equal(domesticPayment.status, 200);
  });
});

describe('ECB rates whose USD goes away and comes back', () => {
  let dir: string;
  let path: string;
  let rates: LoadedRates;
  let gateway: Gateway;
  let token: string;
  let refreshed: () => Promise<void>;

  /** Replaces the rate file at once with one day, today. */
  async function writeRates(perEuro: Record<string, string>): Promise<void> {
    const cubes = Object.entries(perEuro)
      .map(([currency, rate]) => `<Cube currency='${currency}' rate='${rate}'/>`)
      .join('');
    await writeFile(
      `${path}.new`,
      `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube><Cube time='${today()}'>${cubes}</Cube></Cube>
</gesmes:Envelope>`,
    );
    await rename(`${path}.new`, path);
  }

  /** Replaces the rate file and waits (bounded) until the rates in use are the new ones. */
  async function publish(perEuro: Record<string, string>): Promise<void> {
    await writeRates(perEuro);
    // Two refreshes: the first may have read the file before it changed.
    await refreshed();
    await refreshed();
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fx-http-'));
    path = join(dir, 'eurofxref-daily.xml');
    let waiting: (() => void) | undefined;
    refreshed = () =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no refresh within 2 s')), 2_000);
        waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    await writeRates({ USD: '1.0866', SEK: '11.6385' });
    rates = await loadedRates({
      source: { kind: 'file', path },
      refreshMs: 20,
      onRefresh: () => waiting?.(),
    });
    gateway = await startGateway({ systems: { rates } });
    token = await gateway.client.clientCredentialsToken();
  });
  after(async () => {
    rates.close();
    await gateway.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('initiated with a rate; without it the status omits the exchange and execution is refused; then executed', async () => {
    const { client } = gateway;
    const initiated = await client.initiate(token, { path: PATH, body: crossCurrency() });
    assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
    const paymentId = initiated.body.paymentId;
    const exchange = {
      sourceCurrency: 'SEK',
      targetCurrency: 'USD',
      exchangeRate: '10.710933',
      quotationDate: today(),
    };
    assert.deepEqual(whole(await client.status(PRODUCT, paymentId, token, 'SE')), {
      status: 200,
      body: { paymentId, transactionStatus: 'ACTC', currencyExchange: exchange },
    });
    const scope = `PIS:${paymentId}`;
    const code = (await client.authorize(scope, 's')).get('code')!;
    const psuToken = (await client.exchangeCode(scope, code)).body.access_token;

    await publish({ SEK: '11.6385', GBP: '0.85555' });
    assert.deepEqual(whole(await client.status(PRODUCT, paymentId, token, 'SE')), {
      status: 200,
      body: { paymentId, transactionStatus: 'ACTC' },
    });
    assert.deepEqual(
      whole(await client.execute(PRODUCT, paymentId, psuToken)),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        text: 'the bank has no exchange rate for SEK/USD today: the payment was not executed',
      }),
    );
    assert.deepEqual(await bookedEntries(paymentId), []);

    await publish({ USD: '1.0866', SEK: '11.6385' });
    assert.deepEqual(whole(await client.execute(PRODUCT, paymentId, psuToken)), {
      status: 200,
      body: { paymentId, transactionStatus: 'ACSC', currencyExchange: exchange },
    });
    // USD 250.00 at 10.710933 is SEK 2,677.73 (2,677.73325, half up to öre).
    assert.deepEqual(await bookedEntries(paymentId), [
      { ledger_account: ACCOUNTS.tolvan.accountId, currency: 'SEK', amount_minor: '-267773' },
    ]);
  });

  async function bookedEntries(paymentId: string) {
    return queryRows(
      gateway.store,
      sql`SELECT e.ledger_account, e.currency, e.amount_minor::text AS amount_minor
            FROM ledger_entries e JOIN bookings b USING (booking_id)
           WHERE b.payment_id = ${paymentId} AND e.ledger_account = ${ACCOUNTS.tolvan.accountId}
           ORDER BY e.entry_id`,
    );
  }
});
