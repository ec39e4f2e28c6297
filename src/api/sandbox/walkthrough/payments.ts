// The walkthrough's payments: client token, initiation (Sweden v2 and the general API), redirect
// authorization, code exchange, execution and status; then the decoupled authorization.
import {
  authorize,
  CURL,
  clientToken,
  exchangeCode,
  execute,
  initiate,
  JSON_BODY,
  kept,
  status,
} from './commands.ts';
import { type Examples, toOtherBank, type WalkthroughSection } from './examples.ts';

const SE_V2 = '/psd2/se/v2/payments/private/single';
const OTHER_BANK = 'other-bank-domestic-credit-transfer';

/** The general API: within the bank to the PSU's own account when he has one, else to another bank. */
function initiateGeneral(examples: Examples): string {
  const { payer, ownAccount } = examples;
  if (ownAccount === undefined)
    return initiate(
      'initiate-general',
      OTHER_BANK,
      '/psd2/v1/payments',
      toOtherBank(examples, '250.00', 'Faktura 11'),
      true,
    );
  const body = {
    debtorAccount: { value: payer.bban, accountType: 'BBAN' },
    creditorAccount: { value: ownAccount.bban, accountType: 'BBAN' },
    instructedAmount: { currency: 'SEK', amount: '250.00' },
    remittanceInformationUnstructured: 'Sparande',
  };
  return initiate(
    'initiate-general',
    'handelsbanken-domestic-credit-transfer',
    '/psd2/v1/payments',
    body,
    true,
  );
}

export function paymentSection(examples: Examples): WalkthroughSection {
  const { payer } = examples;
  return {
    id: 'payment',
    title: 'A payment: redirect authorization',
    text: `From ${payer.name} ${payer.bban} of ${payer.ownerName}. Initiate with the Sweden v2 path or with the general API: steps 3 to 6 act on the payment initiated last.`,
    steps: [
      {
        id: 'token',
        title: '1. Client-credentials token',
        text: 'Scope PIS: initiation, status and funds confirmation.',
        command: clientToken('TOKEN', 'PIS'),
      },
      {
        id: 'initiate-se',
        title: '2. Initiate a payment (Sweden v2)',
        text: 'A private customer pays another bank; the answer has the paymentId and the SCA methods.',
        command: initiate('initiate-se', OTHER_BANK, SE_V2, toOtherBank(examples, '100.00', 'Faktura 12')),
      },
      {
        id: 'initiate-general',
        title: '2. Or initiate with the general API (Country header)',
        text: 'The same bank, the country in the Country header.',
        command: initiateGeneral(examples),
      },
      {
        id: 'authorize',
        title: '3. Authorize',
        text: 'The sandbox approves at once: a 302 whose Location carries the code (curl -i shows it).',
        command: authorize('PIS:$PAYMENT_ID'),
      },
      {
        id: 'exchange',
        title: "4. Exchange the code for the PSU's token",
        text: 'The code is good for 60 seconds, once.',
        command: exchangeCode('PSU_TOKEN', 'PIS:$PAYMENT_ID', false),
      },
      {
        id: 'execute',
        title: "5. Execute with the PSU's token",
        text: 'ACCC within the bank, ACSC to another bank.',
        command: execute('execute'),
      },
      {
        id: 'status',
        title: '6. Status',
        text: 'With either token; the general path takes the Country header.',
        command: status('status'),
      },
    ],
  };
}

export function decoupledSection(examples: Examples): WalkthroughSection {
  return {
    id: 'decoupled',
    title: 'A payment: decoupled authorization (mobile e-ID)',
    text: 'Instead of steps 3 and 4: the PSU approves in the e-ID app while the TPP polls. Uses TOKEN from step 1.',
    steps: [
      {
        id: 'decoupled-initiate',
        title: '1. Initiate a payment',
        text: 'A new payment to authorize.',
        command: initiate(
          'decoupled-initiate',
          OTHER_BANK,
          SE_V2,
          toOtherBank(examples, '75.00', 'Faktura 13'),
        ),
      },
      {
        id: 'decoupled-start',
        title: '2. Start the decoupled authorization',
        text: 'Answers an auto-start token for the e-ID app, sleep_time and the token link to poll.',
        command: kept(
          'TOKEN_URL',
          '._links.token.href',
          `${CURL} "$BASE/decoupled/eid/initAuthorization/2.0"`,
          `-H 'Accept: application/json' ${JSON_BODY}`,
          `-d "$(jq -n --arg client_id "$CLIENT_ID" --arg scope "PIS:$PAYMENT_ID" '{$client_id, $scope, psu_client_ip: "192.0.2.1", bisa_same_device: true}')"`,
        ),
      },
      {
        id: 'decoupled-poll',
        title: "3. Poll for the PSU's token",
        text: 'The sandbox answers COMPLETE at the first poll; live, poll again after sleep_time while the result is IN_PROGRESS.',
        command: kept(
          'PSU_TOKEN',
          '.access_token',
          `${CURL} -X POST "$TOKEN_URL" -H 'Accept: application/json' ${JSON_BODY} -d '{}'`,
        ),
      },
      {
        id: 'decoupled-execute',
        title: '4. Execute',
        text: 'As in the redirect flow.',
        command: execute('decoupled-execute'),
      },
      {
        id: 'decoupled-status',
        title: '5. Status',
        text: 'As in the redirect flow.',
        command: status('decoupled-status'),
      },
    ],
  };
}
