// The sibling interfaces the spec summarises: the Swedish short-term consent and its account list
// (spec rows 14 and 15), account consents and accounts (API-NOTES "Accounts, cards, consents, funds";
// the spec: "The consents interface endpoints: not shown"), and funds confirmation (spec row 16).
import type { Check } from '../check.ts';
import { Deviation } from '../check.ts';
import { expectArray, expectString, jsonBody, shown } from '../expect.ts';
import { postJson, requestClientToken, setupPsuToken, tppHeaders } from '../flow.ts';
import { type Answer, send } from '../http.ts';

const ACCOUNT_REF =
  'spec Resources "Account: accountId, iban, bban, currency, accountType, bic, clearingNumber, name, ownerName, _links.transactions.href"';

/** A consent answer: 201, its id, status and SCA methods (API-NOTES "answers **201** {consentId, consentStatus, scaMethods}"). */
function consentOf(answer: Answer): string {
  const body = jsonBody(answer, 201);
  expectString(body, 'consentStatus');
  expectArray(body, 'scaMethods');
  return expectString(body, 'consentId');
}

/** The accounts of a list, each with the record's fields; `links`: with _links.transactions.href. */
function expectAccounts(answer: Answer, links: boolean): void {
  const body = jsonBody(answer, 200);
  expectArray(body, 'accounts').forEach((account, index) => {
    for (const field of ['accountId', 'currency', 'accountType', 'name', 'ownerName']) {
      expectString(body, `accounts.${index}.${field}`);
    }
    const record = account as Record<string, unknown>;
    if (typeof record.iban !== 'string' && typeof record.bban !== 'string') {
      throw new Deviation(`accounts.${index}: iban or bban`, `fields ${shown(Object.keys(record))}`);
    }
    if (links) expectString(body, `accounts.${index}._links.transactions.href`);
  });
}

export const accountInformationChecks: readonly Check[] = [
  {
    id: 'consent.short-term',
    title: 'a Swedish short-term consent',
    ref: 'spec row 14 "body access = ALL_ACCOUNTS": "Same shape as the account consent response" (API-NOTES: consentId, consentStatus, scaMethods)',
    needs: ['clientToken'],
    provides: ['shortTermConsent'],
    async run(context) {
      const path = '/psd2/se/v2/payments/private/accounts/shorttermconsents';
      const answer = await postJson(context, path, context.fact('clientToken'), { access: 'ALL_ACCOUNTS' });
      context.provide('shortTermConsent', consentOf(answer));
    },
  },
  {
    id: 'consent.short-term.accounts',
    title: 'the account list under a short-term consent (PIS scope)',
    ref: `spec row 15 "PSU token obtained via the authorization flow with a PIS scope": "Same shape as the account list"; ${ACCOUNT_REF}`,
    needs: ['shortTermConsent'],
    async run(context) {
      const token = await setupPsuToken(context, `PIS:${context.fact('shortTermConsent')}`);
      const answer = await send(context, {
        method: 'GET',
        path: '/psd2/se/v2/payments/private/accounts',
        headers: tppHeaders(context, token),
      });
      // A short-term consent reads no transactions (spec "Short-term consent": "the account list,
      // balances and card data"): a link to them is not asked for.
      expectAccounts(answer, false);
    },
  },
  {
    id: 'consent.account',
    title: 'an account consent with a client-credentials token of scope AIS',
    ref: 'API-NOTES Consent "POST /psd2/v1/consents with {"access": "ALL_ACCOUNTS"} answers **201** {consentId, consentStatus, scaMethods}"',
    provides: ['aisConsent'],
    async run(context) {
      const body = jsonBody(await requestClientToken(context, { scope: 'AIS' }), 200, 'token with scope AIS');
      const answer = await postJson(
        context,
        '/psd2/v1/consents',
        expectString(body, 'access_token'),
        { access: 'ALL_ACCOUNTS' },
        { 'PSU-ID': context.options.psuId },
      );
      context.provide('aisConsent', consentOf(answer));
    },
  },
  {
    id: 'accounts.list',
    title: 'the account list under an authorized account consent',
    ref: `spec row 16 "GET /accounts"; ${ACCOUNT_REF}; API-NOTES "the PSU authorizes scope AIS:<consentId>"`,
    needs: ['aisConsent'],
    async run(context) {
      const token = await setupPsuToken(context, `AIS:${context.fact('aisConsent')}`);
      const answer = await send(context, {
        method: 'GET',
        path: '/psd2/v1/accounts',
        headers: tppHeaders(context, token),
      });
      expectAccounts(answer, true);
    },
  },
  {
    id: 'funds.confirmation',
    title: 'a funds confirmation answers fundsAvailable true or false',
    ref: 'spec row 16 "POST /funds-confirmations", Resources "account.iban, payee, instructedAmount"; API-NOTES "{"fundsAvailable": true|false}"',
    needs: ['clientToken'],
    async run(context) {
      const answer = await postJson(context, '/psd2/v1/funds-confirmations', context.fact('clientToken'), {
        account: { iban: context.options.debtorIban },
        payee: 'Muster GmbH',
        instructedAmount: { currency: 'EUR', amount: '1.00' },
      });
      const body = jsonBody(answer, 200);
      if (typeof body.fundsAvailable !== 'boolean') {
        throw new Deviation('fundsAvailable: true or false', `fundsAvailable: ${shown(body.fundsAvailable)}`);
      }
    },
  },
];
