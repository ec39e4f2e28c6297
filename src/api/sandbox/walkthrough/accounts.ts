// The walkthrough's account information (a consent, its authorization, accounts, balances,
// transactions, card accounts) and funds confirmation.
import {
  authorize,
  CURL,
  clientToken,
  continued,
  exchangeCode,
  JSON_BODY,
  jsonBody,
  kept,
  pathSegment,
  read,
  shellQuote,
  tppHeaders,
} from './commands.ts';
import type { Examples, WalkthroughSection } from './examples.ts';

export function accountsSection(examples: Examples): WalkthroughSection {
  const account = `/psd2/v1/accounts/${pathSegment(examples.payer.accountId)}`;
  return {
    id: 'accounts',
    title: 'Account information',
    text: `A consent of PSU ${examples.psuId}, approved at once, then his accounts, balances, transactions and card accounts.`,
    steps: [
      {
        id: 'ais-token',
        title: '1. Client-credentials token',
        text: 'Scope AIS.',
        command: clientToken('AIS_TOKEN', 'AIS'),
      },
      {
        id: 'consent',
        title: '2. Ask for a consent',
        text: 'All accounts, for the PSU named in PSU-ID (optional: validUntil up to 180 days, frequencyPerDay 1 to 4).',
        command: kept(
          'CONSENT_ID',
          '.consentId',
          `${CURL} "$BASE/psd2/v1/consents"`,
          ...tppHeaders('AIS_TOKEN', 'consent', `-H ${shellQuote(`PSU-ID: ${examples.psuId}`)}`),
          `${JSON_BODY} -d '{"access": "ALL_ACCOUNTS"}'`,
        ),
      },
      {
        id: 'consent-authorize',
        title: '3. Authorize the consent',
        text: 'Scope AIS:<consentId>; the code in the Location.',
        command: authorize('AIS:$CONSENT_ID'),
      },
      {
        id: 'consent-exchange',
        title: '4. Exchange the code',
        text: 'An access token and a refresh token (grant_type=refresh_token renews the access token).',
        command: exchangeCode('ACCOUNTS_TOKEN', 'AIS:$CONSENT_ID', true),
      },
      {
        id: 'accounts-list',
        title: '5. Accounts',
        text: 'With balances (withBalance=false leaves them out). PSU-IP-Address: the PSU is present, so the read does not count against the daily frequency.',
        command: read('accounts-list', '/psd2/v1/accounts'),
      },
      {
        id: 'balances',
        title: '6. Balances',
        text: `Of ${examples.payer.name} ${examples.payer.bban}.`,
        command: read('balances', `${account}/balances`),
      },
      {
        id: 'transactions',
        title: '7. Transactions',
        text: 'The 90 days up to today unless dateFrom and dateTo say otherwise; newest first (here the first five).',
        command: read('transactions', `${account}/transactions`, '.transactions[:5]'),
      },
      ...(examples.hasCardAccount
        ? [
            {
              id: 'card-accounts',
              title: '8. Card accounts',
              text: 'Masked card numbers, credit limit, what is owed and what is left.',
              command: read('card-accounts', '/psd2/v1/card-accounts'),
            },
          ]
        : []),
    ],
  };
}

export function fundsSection(examples: Examples): WalkthroughSection {
  const confirm = (step: string, body: Record<string, unknown>) =>
    continued(
      `${CURL} "$BASE/psd2/v1/funds-confirmations"`,
      ...tppHeaders('TOKEN', step),
      `${JSON_BODY} ${jsonBody(body)}`,
      '| jq .',
    );
  const amount = { currency: 'SEK', amount: '250.00' };
  return {
    id: 'funds',
    title: 'Funds confirmation',
    text: 'Is an amount available now: true or false. Uses TOKEN (scope PIS) from the payment flow.',
    steps: [
      {
        id: 'funds-iban',
        title: 'By IBAN',
        text: `${examples.payer.name} ${examples.payer.iban}.`,
        command: confirm('funds-iban', {
          account: { iban: examples.payer.iban },
          payee: 'Webbutiken AB',
          instructedAmount: amount,
        }),
      },
      ...(examples.creditCard === undefined
        ? []
        : [
            {
              id: 'funds-card',
              title: 'By card number',
              text: 'A credit card: what is left of its limit.',
              command: confirm('funds-card', { cardNumber: examples.creditCard, instructedAmount: amount }),
            },
          ]),
    ],
  };
}
