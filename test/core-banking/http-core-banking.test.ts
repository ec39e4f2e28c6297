// The core banking port over HTTP (src/adapters/http-core-banking/) against a stand-in bank that
// serves docs/core-banking-api.yaml: every read and booking the port has, ISO 20022 rejections, and
// bookings that stay exactly once while the bank fails on purpose (5xx before and after booking, an
// answer too late, a dropped connection, a request handled twice, an order still in progress). The
// stand-in checks every request and answer against the document: no test may leave a violation, and
// every operation of the document is used. Mutual TLS once, with a bank that requires a certificate.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import {
  CoreBankingContractError,
  CoreBankingUnavailable,
  type HttpCoreBanking,
  httpCoreBanking,
} from '../../src/adapters/http-core-banking/http-core-banking.ts';
import { createCa, issueQwac, issueServerCertificate } from '../../src/certificates/issue.ts';
import type { BookingLine, BookingOrder } from '../../src/ports/core-banking.ts';
import { TEST_ACCOUNTS, TEST_CARD_ACCOUNTS } from '../../src/sandbox/test-data.ts';
import { CONTRACT, type CoreBankingStandIn, startCoreBankingStandIn } from '../stand-ins/core-banking.ts';
import { BANK_ONLY, bankIdOf } from '../stand-ins/core-banking-book.ts';

const [TOLVAN, , AGDA] = TEST_ACCOUNTS;
const CARD_ACCOUNT = TEST_CARD_ACCOUNTS[0]!;
const FAST_RETRY = { attempts: 3, baseDelayMs: 10, maxDelayMs: 40 };

function order(overrides: Partial<BookingLine> = {}, key = randomUUID()): BookingOrder {
  const line: BookingLine = {
    paymentId: key,
    product: 'handelsbanken-domestic-credit-transfer',
    debtorAccountId: bankIdOf(TOLVAN!.accountId),
    amount: { currency: 'SEK', minor: 125_50 },
    creditorAccount: AGDA!.bban!,
    creditorName: null,
    withinBank: true,
    remittance: 'Hyra mars',
    reference: null,
    initiatedOn: '2026-03-02',
    ...overrides,
  };
  return { key, bookingDate: '2026-03-02', lines: [line] };
}

describe('the core banking port over HTTP, against a stand-in bank', () => {
  let bank: CoreBankingStandIn;
  let core: HttpCoreBanking;

  before(async () => {
    bank = await startCoreBankingStandIn();
    core = httpCoreBanking({ url: bank.url, timeoutMs: 300, retry: FAST_RETRY });
  });
  after(async () => {
    core.close();
    await bank.close();
  });
  afterEach(() => assert.deepEqual(bank.violations.splice(0), [], 'requests and answers keep the contract'));

  test('finds an account by IBAN, by country and BBAN and by id; none for an account the bank has not', async () => {
    const expected = {
      accountId: bankIdOf(TOLVAN!.accountId),
      psuId: '191212121212',
      country: 'SE',
      currency: 'SEK',
      iban: TOLVAN!.iban,
      bban: TOLVAN!.bban,
      clearingNumber: '6000',
      bic: 'HANDSESS',
      accountType: 'CACC',
      name: 'Allkonto',
      ownerName: 'Tolvan Tolvansson',
      ownerType: 'private',
      ownerCorporateId: null,
    };
    assert.deepEqual(await core.findAccount({ kind: 'iban', iban: TOLVAN!.iban! }), expected);
    assert.deepEqual(await core.findAccount({ kind: 'bban', country: 'SE', bban: TOLVAN!.bban! }), expected);
    assert.deepEqual(
      await core.findAccount({ kind: 'id', accountId: bankIdOf(TOLVAN!.accountId) }),
      expected,
    );
    assert.equal(await core.findAccount({ kind: 'iban', iban: 'SE4550000000058398257466' }), undefined);
    assert.equal(await core.findAccount({ kind: 'id', accountId: 'no/such account?' }), undefined);
  });

  test("a customer, the customer's accounts, card accounts and cards, as the bank has them", async () => {
    const { psu, salary, savings, cardAccount, debitCard, creditCard } = BANK_ONLY;
    assert.deepEqual(await core.customers.findPsu(psu.psuId), psu);
    assert.deepEqual(await core.customers.findPsu('197001011234'), {
      psuId: '197001011234',
      name: 'Testbolaget AB',
      customerType: 'corporate',
      corporateId: '5566778899',
    });
    assert.equal(await core.customers.findPsu('190001010000'), undefined);
    const account = (accountId: string, iban: string, bban: string, name: string) => ({
      accountId,
      psuId: psu.psuId,
      country: 'SE',
      currency: 'SEK',
      iban,
      bban,
      clearingNumber: '6000',
      bic: 'HANDSESS',
      accountType: 'CACC',
      name,
      ownerName: 'Berit Bankkund',
    });
    assert.deepEqual(await core.customers.accountsOf(psu.psuId), [
      account(salary.accountId, salary.iban, salary.bban, 'Lönekonto'),
      account(savings.accountId, savings.iban, savings.bban, 'Buffertkonto'),
    ]);
    assert.deepEqual(await core.customers.accountsOf('190001010000'), []);
    assert.deepEqual(await core.customers.cardAccountsOf(psu.psuId), [
      {
        cardAccountId: cardAccount.cardAccountId,
        psuId: psu.psuId,
        currency: 'SEK',
        product: 'Handelsbanken Mastercard',
        ownerName: 'Berit Bankkund',
        creditLimitMinor: 20_000_00,
      },
    ]);
    assert.deepEqual(await core.customers.cardsOf([salary.accountId, cardAccount.cardAccountId, 'nope']), [
      {
        cardId: debitCard.cardId,
        accountId: salary.accountId,
        cardAccountId: null,
        maskedPan: '457173******3456',
        name: 'Debit card',
      },
      {
        cardId: creditCard.cardId,
        accountId: null,
        cardAccountId: cardAccount.cardAccountId,
        maskedPan: '552288******7890',
        name: 'Mastercard',
      },
    ]);
    assert.deepEqual(await core.customers.cardsOf([]), []);
  });

  test('card accounts, balances, statements and available funds', async () => {
    assert.deepEqual(await core.findCardAccount(bankIdOf(CARD_ACCOUNT.cardAccountId)), {
      cardAccountId: bankIdOf(CARD_ACCOUNT.cardAccountId),
      psuId: '191212121212',
      currency: 'SEK',
      product: 'Handelsbanken Mastercard',
      ownerName: 'Tolvan Tolvansson',
      creditLimitMinor: 50_000_00,
    });
    assert.equal(await core.findCardAccount('nope'), undefined);
    assert.deepEqual(
      await core.balances([bankIdOf(AGDA!.accountId), bankIdOf(CARD_ACCOUNT.cardAccountId), 'nope']),
      new Map([
        [bankIdOf(AGDA!.accountId), bank.book.balanceOf(bankIdOf(AGDA!.accountId))],
        [bankIdOf(CARD_ACCOUNT.cardAccountId), -8_450_00],
      ]),
    );
    assert.deepEqual(await core.balances([]), new Map());
    const first = order({
      debtorAccountId: bankIdOf(AGDA!.accountId),
      creditorAccount: TOLVAN!.bban!,
      remittance: 'one',
    });
    const second = order({
      debtorAccountId: bankIdOf(AGDA!.accountId),
      creditorAccount: TOLVAN!.bban!,
      remittance: 'two',
    });
    await core.book(first);
    await core.book(second);
    const line = (remittance: string) => ({
      amountMinor: -125_50,
      currency: 'SEK',
      bookedOn: '2026-03-02',
      transactionDate: '2026-03-02',
      debtorName: 'Agda Andersson',
      creditorName: 'Tolvan Tolvansson',
      remittance,
    });
    const period = { from: '2026-03-01', to: '2026-03-31', limit: 600 };
    assert.deepEqual(await core.statement(bankIdOf(AGDA!.accountId), period), [line('two'), line('one')]);
    assert.deepEqual(await core.statement(bankIdOf(AGDA!.accountId), { ...period, limit: 1 }), [line('two')]);
    assert.deepEqual(
      await core.statement(bankIdOf(AGDA!.accountId), { ...period, from: '2026-04-01', to: '2026-04-30' }),
      [],
    );
    assert.deepEqual(await core.statement('nope', period), []);
    assert.deepEqual(await core.availableFunds({ iban: AGDA!.iban! }), {
      currency: 'SEK',
      availableMinor: bank.book.balanceOf(bankIdOf(AGDA!.accountId)),
    });
    assert.deepEqual(await core.availableFunds({ cardNumber: '5522 3312 3456 4321' }), {
      currency: 'SEK',
      availableMinor: 50_000_00 - 8_450_00,
    });
    assert.equal(await core.availableFunds({ cardNumber: '4556770000000000' }), undefined);
  });

  test('books an order once: asked again under its key, the same outcome and nothing more', async () => {
    const booking = order();
    const before = bank.book.balanceOf(bankIdOf(TOLVAN!.accountId))!;
    assert.deepEqual(await core.book(booking), { booked: true });
    assert.deepEqual(await core.book(booking), { booked: true });
    assert.equal(bank.book.bookings.get(booking.key), 1);
    assert.equal(bank.book.balanceOf(bankIdOf(TOLVAN!.accountId)), before - 125_50);
    const sent = bank.requests.filter(
      (request) => request.operation === 'bookOrder' && request.key === booking.key,
    );
    assert.equal(sent.length, 2, 'each under the order key as Idempotency-Key');
  });

  test('rejects with the ISO 20022 reason, and a rejection stays one when asked again', async () => {
    bank.book.setBalance(bankIdOf(AGDA!.accountId), 100_00);
    const tooMuch = order({ debtorAccountId: bankIdOf(AGDA!.accountId), creditorAccount: TOLVAN!.bban! });
    const refusal = { booked: false, reasonCode: 'AM04', reason: 'insufficient funds on the debtor account' };
    assert.deepEqual(await core.book(tooMuch), refusal);
    bank.book.setBalance(bankIdOf(AGDA!.accountId), 1_000_00);
    assert.deepEqual(await core.book(tooMuch), refusal, 'the money arrived since: still the first outcome');
    bank.book.accounts.get(bankIdOf(AGDA!.accountId))!.blocked = true;
    try {
      assert.deepEqual(await core.book(order({ debtorAccountId: bankIdOf(AGDA!.accountId) })), {
        booked: false,
        reasonCode: 'AC06',
        reason: 'the debtor account is blocked',
      });
    } finally {
      bank.book.accounts.get(bankIdOf(AGDA!.accountId))!.blocked = false;
    }
    assert.deepEqual(await core.book(order({ debtorAccountId: 'closed-account' })), {
      booked: false,
      reasonCode: 'AC02',
      reason: 'the bank has no such debtor account',
    });
    assert.equal(bank.book.bookings.get(tooMuch.key), undefined);
  });

  test('5xx, an answer too late, a dropped connection, a request handled twice: retried under the same key, booked once', async () => {
    const faults = [
      { kind: 'fail-before', status: 503 },
      { kind: 'fail-after', status: 500 },
      { kind: 'answer-late', ms: 450 },
      { kind: 'drop-after' },
      { kind: 'duplicate' },
    ] as const;
    for (const fault of faults) {
      const booking = order();
      const from = bank.requests.length;
      bank.script(fault, fault.kind === 'duplicate' ? 1 : 2);
      assert.deepEqual(await core.book(booking), { booked: true }, fault.kind);
      assert.equal(bank.book.bookings.get(booking.key), 1, fault.kind);
      const attempts = fault.kind === 'duplicate' ? 1 : 3;
      assert.deepEqual(
        bank.requests.slice(from).map((request) => request.key),
        Array(attempts).fill(booking.key),
        `${fault.kind}: every attempt under the order's key`,
      );
    }
    // Reads too.
    bank.script({ kind: 'fail-before', status: 502 }, 2, 'all');
    assert.equal(
      (await core.findAccount({ kind: 'iban', iban: AGDA!.iban! }))?.accountId,
      bankIdOf(AGDA!.accountId),
    );
  });

  test('the bank failing on every attempt: the outcome is unknown (CoreBankingUnavailable); asked later, booked once', async () => {
    const before = order();
    bank.script({ kind: 'fail-before' }, 3);
    await assert.rejects(core.book(before), CoreBankingUnavailable);
    assert.equal(bank.book.bookings.get(before.key), undefined);
    assert.deepEqual(await core.book(before), { booked: true });
    const afterBooking = order();
    bank.script({ kind: 'fail-after' }, 3);
    await assert.rejects(core.book(afterBooking), {
      name: 'CoreBankingUnavailable',
      message: `core banking system, booking order ${afterBooking.key}: no usable answer in 3 attempts (last: answered 503)`,
    });
    assert.equal(bank.book.bookings.get(afterBooking.key), 1, 'booked, though no answer said so');
    assert.deepEqual(await core.book(afterBooking), { booked: true });
    assert.equal(bank.book.bookings.get(afterBooking.key), 1);
  });

  test('an order still in progress (409): asked again until it is decided, booked once', async () => {
    const patient = httpCoreBanking({
      url: bank.url,
      timeoutMs: 200,
      retry: { attempts: 6, baseDelayMs: 50, maxDelayMs: 200 },
    });
    try {
      const booking = order();
      bank.script({ kind: 'in-progress', ms: 400 });
      assert.deepEqual(await patient.book(booking), { booked: true });
      assert.equal(bank.book.bookings.get(booking.key), 1);
    } finally {
      patient.close();
    }
  });

  test('the key reused for another order (422) is refused at once, and nothing more is booked', async () => {
    const booking = order();
    await core.book(booking);
    const changed = { ...booking, lines: [{ ...booking.lines[0]!, amount: { currency: 'SEK', minor: 1 } }] };
    const asked = bank.requests.length;
    await assert.rejects(core.book(changed), {
      name: 'CoreBankingContractError',
      message: `core banking system, booking order ${booking.key}: answered 422 IDEMPOTENCY_KEY_REUSED`,
    });
    assert.equal(bank.requests.length, asked + 1, 'not retried');
    assert.equal(bank.book.bookings.get(booking.key), 1);
  });

  test('a base URL that is not the contract’s: an error, never "no such account"', async () => {
    const lost = httpCoreBanking({ url: `${bank.url}/elsewhere`, timeoutMs: 300, retry: FAST_RETRY });
    try {
      await assert.rejects(
        lost.findAccount({ kind: 'id', accountId: bankIdOf(TOLVAN!.accountId) }),
        CoreBankingContractError,
      );
    } finally {
      lost.close();
    }
    assert.equal(bank.violations.splice(0).length, 1);
  });

  test('the document is valid OpenAPI 3.1, and the adapter uses every operation of it', async () => {
    const document = (await SwaggerParser.validate(CONTRACT)) as { openapi: string; paths: object };
    assert.equal(document.openapi, '3.1.0');
    const operations = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId: string }>).map(
        (operation) => operation.operationId,
      ),
    );
    const used = new Set(bank.requests.map((request) => request.operation));
    assert.deepEqual(
      operations.filter((operation) => !used.has(operation)),
      [],
    );
  });
});

describe('the core banking port over mutual TLS', () => {
  test('a bank that requires a client certificate answers the gateway with its certificate, and refuses one without', async () => {
    const ca = await createCa();
    const server = await issueServerCertificate(ca);
    const client = await issueQwac(ca, {
      organizationIdentifier: 'PSDSE-FINA-44059',
      organizationName: 'psd2-gateway',
      roles: [],
    });
    const bank = await startCoreBankingStandIn({
      tls: { cert: server.certificatePem, key: server.keyPem, clientCa: ca.certificatePem },
    });
    const options = { url: bank.url, ca: ca.certificatePem, timeoutMs: 2_000, retry: { attempts: 1 } };
    const withCertificate = httpCoreBanking({ ...options, cert: client.certificatePem, key: client.keyPem });
    const without = httpCoreBanking(options);
    try {
      assert.equal(
        (await withCertificate.findAccount({ kind: 'iban', iban: TOLVAN!.iban! }))?.accountId,
        bankIdOf(TOLVAN!.accountId),
      );
      assert.deepEqual(await withCertificate.book(order()), { booked: true });
      await assert.rejects(
        without.findAccount({ kind: 'iban', iban: TOLVAN!.iban! }),
        CoreBankingUnavailable,
      );
      assert.deepEqual(bank.violations, []);
    } finally {
      withCertificate.close();
      without.close();
      await bank.close();
    }
  });
});
