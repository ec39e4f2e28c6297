// The sandbox's scenarios: dedicated test PSUs and accounts (real check digits) that make the live
// service's failures happen, deterministically, so that a TPP can rehearse them. Everything else in
// the sandbox still succeeds, as the contract says. README and GET /sandbox/test-data list the table.
import type { PsuScenario, ScenarioOf } from '../domain/scenarios.ts';

/** The scenario PSUs: personal number and name. */
export const SCENARIO_PSUS: readonly (readonly [psuId: string, name: string])[] = [
  ['198503012380', 'Sam Scenario'],
  ['197906144410', 'Dennis Declines'],
  ['199109022260', 'Sofia Slow'],
  ['196604201274', 'Erik Expires'],
  ['198811113391', 'Max Polling'],
  ['197307072525', 'Ella Expired'],
  ['199402282637', 'Rolf Revoked'],
];

const [SAM, DENNIS, SOFIA, ERIK, MAX, ELLA, ROLF] = SCENARIO_PSUS.map(([psuId]) => psuId) as string[];

/** What each scenario PSU makes happen. */
const SCENARIOS: Readonly<Record<string, PsuScenario>> = {
  [DENNIS!]: { authorization: 'declines', pendingPolls: 1 },
  [SOFIA!]: { pendingPolls: 2 },
  [ERIK!]: { authorization: 'expires', pendingPolls: 1 },
  [MAX!]: { maxPolls: 2 },
  [ELLA!]: { consent: 'expires' },
  [ROLF!]: { consent: 'revoked' },
};

export const scenarioOf: ScenarioOf = (psuId) => SCENARIOS[psuId];

/** The scenario PSUs' accounts (clearing number 6000), and the rules the ledger applies to them. */
export const SCENARIO_ACCOUNTS: readonly {
  readonly psuId: string;
  readonly account: string;
  readonly name: string;
  readonly position: number;
  readonly accountType?: string;
  readonly balanceMinor?: number;
  readonly rules?: { readonly blocked?: boolean; readonly dailyLimitMinor?: number };
}[] = [
  { psuId: SAM!, account: '240000005', name: 'Tomt konto', position: 1, balanceMinor: 0, rules: {} },
  { psuId: SAM!, account: '240000013', name: 'Spärrat konto', position: 2, rules: { blocked: true } },
  {
    psuId: SAM!,
    account: '240000021',
    name: 'Konto med dagsgräns',
    position: 3,
    rules: { dailyLimitMinor: 1_000_00 },
  },
  {
    psuId: SAM!,
    account: '240000048',
    name: 'Investeringssparkonto',
    position: 4,
    accountType: 'ISK',
    rules: {},
  },
  { psuId: DENNIS!, account: '240000056', name: 'Allkonto', position: 1 },
  { psuId: SOFIA!, account: '240000064', name: 'Allkonto', position: 1 },
  { psuId: ERIK!, account: '240000072', name: 'Allkonto', position: 1 },
  { psuId: MAX!, account: '240000080', name: 'Allkonto', position: 1 },
  { psuId: ELLA!, account: '240000099', name: 'Allkonto', position: 1 },
  { psuId: ROLF!, account: '240000102', name: 'Allkonto', position: 1 },
];

/** The table a TPP reads (README, GET /sandbox/test-data): what to send, and what happens. */
export const SCENARIO_TABLE: readonly { readonly trigger: string; readonly outcome: string }[] = [
  {
    trigger: `execute a payment from Sam Scenario's account 6000 240000005 (empty)`,
    outcome: 'RJCT, reasonCode AM04: insufficient funds',
  },
  {
    trigger: `execute a payment from Sam Scenario's account 6000 240000013 (blocked)`,
    outcome: 'RJCT, reasonCode AC06: the debtor account is blocked',
  },
  {
    trigger: `execute payments of more than SEK 1,000.00 in a day from Sam Scenario's account 6000 240000021`,
    outcome: 'RJCT, reasonCode AM02: the daily limit is exceeded',
  },
  {
    trigger: `execute a payment from Sam Scenario's investment savings account (ISK) 6000 240000048`,
    outcome: 'RJCT, reasonCode AG01: payments cannot be made from this type of account',
  },
  {
    trigger: `authorize anything of Dennis Declines (${DENNIS}): his payments, or a consent with PSU-ID ${DENNIS}`,
    outcome: 'redirect: error=access_denied; decoupled: IN_PROGRESS once, then USER_CANCEL',
  },
  {
    trigger: `decoupled authorization by Sofia Slow (${SOFIA})`,
    outcome: 'IN_PROGRESS twice, then COMPLETE',
  },
  {
    trigger: `authorize anything of Erik Expires (${ERIK})`,
    outcome:
      'redirect: error=access_denied (the page expired); decoupled: IN_PROGRESS once, then intent_expired',
  },
  {
    trigger: `decoupled authorization by Max Polling (${MAX})`,
    outcome: 'IN_PROGRESS twice, then mbid_max_polling',
  },
  {
    trigger: `a consent approved by Ella Expired (${ELLA}, PSU-ID header or decoupled psu_id)`,
    outcome: 'consentStatus expired; reads 401 CONSENT_EXPIRED; refresh invalid_grant',
  },
  {
    trigger: `a consent approved by Rolf Revoked (${ROLF})`,
    outcome: 'consentStatus revokedByPsu; reads 401 CONSENT_INVALID; refresh invalid_grant',
  },
  {
    trigger: 'a consent with "frequencyPerDay": 1, read twice a day without PSU-IP-Address',
    outcome: '429 ACCESS_EXCEEDED on the second read of the resource',
  },
  {
    trigger:
      "funds confirmation for Sam Scenario's empty account (IBAN SE4760000000000240000005), or for more than a balance",
    outcome: '{"fundsAvailable": false}',
  },
];
