// The flows the demo walks, step by step as a TPP makes them: a payment authorized in the redirect flow,
// the same in the decoupled flow, a signing basket, and account information. Each says how many steps
// it takes, for the progress counter.
import {
  type BasketPayment,
  CREATED,
  type DecoupledPollAnswer,
  type HttpAnswer,
  TppError,
  timerSleep,
} from '@psd2-gateway/client';
import { NOTIFIED_STEPS, notifiedFlow } from './notified.ts';
import {
  clientToken,
  type DemoAccounts,
  type DemoContext,
  DOMESTIC,
  domesticPayment,
  executeAndRead,
  GIRO,
  initiateDomestic,
  redirectAuthorization,
  tokenFields,
} from './steps.ts';
import { requestLine } from './walk.ts';

export const FLOW_NAMES = ['redirect', 'decoupled', 'basket', 'ais', 'notified'] as const;
export type FlowName = (typeof FLOW_NAMES)[number];

export interface Flow {
  readonly title: string;
  readonly steps: number;
  run(context: DemoContext): Promise<void>;
}

const redirect: Flow = {
  title: 'redirect: a domestic payment, authorized in the OAuth redirect flow',
  steps: 6,
  async run(context) {
    const token = await clientToken(context, 'PIS');
    const paymentId = await initiateDomestic(context, token);
    const psuToken = await redirectAuthorization(context, `PIS:${paymentId}`);
    await executeAndRead(context, paymentId, psuToken, token);
  },
};

const decoupled: Flow = {
  title: 'decoupled: a domestic payment, authorized in the e-ID app, polled sleep_time apart',
  steps: 6,
  async run(context) {
    const { client, walk } = context;
    const token = await clientToken(context, 'PIS');
    const paymentId = await initiateDomestic(context, token);
    const started = await walk.call(
      () => client.decoupled.start(`PIS:${paymentId}`),
      200,
      (body) =>
        `sleep_time ${body.sleep_time}, ${body.auto_start_token === undefined ? 'qr_code' : 'auto_start_token'}`,
    );
    const final = await walk.action(
      'polling the token link until the PSU is done',
      () =>
        client.decoupled.waitForResult(started.body, {
          sleep: (ms) => {
            walk.note(`waiting sleep_time ${ms} ms`);
            return timerSleep(ms);
          },
          onPoll: (answer, poll) =>
            walk.note(`poll ${poll}: ${requestLine(answer)} -> ${pollFields(answer)}`),
        }),
      (body) => `${body.result}${body.result === 'COMPLETE' ? `, ${tokenFields(body)}` : ''}`,
    );
    if (final.result !== 'COMPLETE') throw new TppError('decoupled authorization', 200, final);
    await executeAndRead(context, paymentId, final.access_token, token);
  },
};

function pollFields(answer: HttpAnswer<DecoupledPollAnswer>): string {
  const body = answer.body as Partial<DecoupledPollAnswer> & { error?: string };
  return `${answer.status} ${body.result ?? body.error ?? ''}`.trim();
}

/** A signing basket: rent to the payee within the bank, and a bill paid to a Bankgiro number. */
function basketPayments(accounts: DemoAccounts): BasketPayment[] {
  return [
    { ...domesticPayment(accounts, '800.00'), paymentProduct: DOMESTIC, tppPaymentReference: 'rent' },
    {
      debtorAccount: { value: accounts.debtor, accountType: 'BBAN' },
      creditorAccount: { value: '505-0109', accountType: 'BG' },
      creditor: { name: 'Elbolaget AB' },
      instructedAmount: { currency: 'SEK', amount: '250.00' },
      remittanceInformationUnstructured: 'OCR 4455667788',
      paymentProduct: GIRO,
      tppPaymentReference: 'power',
    },
  ];
}

const basket: Flow = {
  title: 'basket: two payments initiated together, authorized once, executed together',
  // token, initiate, authorize, exchange, execute, and each payment's status
  steps: 5 + 2,
  async run(context) {
    const { client, walk } = context;
    const token = await clientToken(context, 'PIS');
    const payments = basketPayments(context.accounts);
    const initiated = await walk.call(
      () => client.baskets.initiate(token, payments),
      200,
      (body) =>
        `signingBaskedId ${body.signingBaskedId}, payments ` +
        body.payments.map((payment) => payment.tppPaymentReference).join(', '),
    );
    const basketId = initiated.body.signingBaskedId;
    const psuToken = await redirectAuthorization(context, `PIS:${basketId}`);
    await walk.call(
      () => client.baskets.execute(GIRO, basketId, psuToken),
      200,
      (body) => `signingBasketId ${body.signingBasketId}, transactionStatus ${body.transactionStatus}`,
    );
    for (const [index, payment] of initiated.body.payments.entries()) {
      const product = payments[index]!.paymentProduct;
      await walk.call(
        () => client.status(product, payment.paymentId, token, 'SE'),
        200,
        (body) => `${payment.tppPaymentReference}: transactionStatus ${body.transactionStatus}`,
      );
    }
  },
};

const ais: Flow = {
  title: 'ais: a consent, its authorization, the accounts, balances and transactions',
  steps: 11,
  async run(context) {
    const { client, walk } = context;
    const token = await clientToken(context, 'AIS');
    const created = await walk.call(
      () => client.consents.create(token),
      CREATED,
      (body) => `consentId ${body.consentId}, consentStatus ${body.consentStatus}`,
    );
    const consentId = created.body.consentId;
    const psuToken = await redirectAuthorization(context, `AIS:${consentId}`);
    await walk.call(
      () => client.consents.read(consentId, psuToken),
      200,
      (body) =>
        `consentStatus ${body.consentStatus}, validUntil ${body.validUntil}, frequencyPerDay ${body.frequencyPerDay}`,
    );
    const list = await walk.call(
      () => client.accounts.list(psuToken),
      200,
      (body) =>
        `${body.accounts.length} accounts, ` +
        `${body.accounts.reduce((sum, account) => sum + (account.balances?.length ?? 0), 0)} balances`,
    );
    const first = list.body.accounts[0];
    if (first === undefined) throw new Error('the consent shows no account');
    await walk.call(
      () => client.accounts.details(first.accountId, psuToken, { withBalance: true }),
      200,
      (body) => `accountId ${body.accountId}, ${body.currency}, ${body.name}`,
    );
    await walk.call(
      () => client.accounts.balances(first.accountId, psuToken),
      200,
      (body) =>
        `${body.balances.length} balances: ` +
        body.balances.map((b) => `${b.balanceType} ${b.amount.content} ${b.amount.currency}`).join(', '),
    );
    await walk.call(
      () => client.accounts.transactions(first.accountId, psuToken),
      200,
      (body) => `${body.transactions.length} transactions in the last 90 days`,
    );
    await walk.call(
      () => client.consents.delete(consentId, token),
      204,
      () => 'consent deleted',
    );
    await walk.call(
      () => client.consents.status(consentId, token),
      200,
      (body) => `consentStatus ${body.consentStatus}`,
    );
  },
};

const notified: Flow = {
  title: 'notified: a payment whose status changes the gateway POSTs, signed, to a receiver started here',
  steps: NOTIFIED_STEPS,
  run: notifiedFlow,
};

export const FLOWS: Readonly<Record<FlowName, Flow>> = { redirect, decoupled, basket, ais, notified };
