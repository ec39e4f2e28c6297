// The sandbox's scenarios: dedicated test PSUs and accounts (real check digits) that make the live
// service's failures happen, deterministically, so that a TPP can rehearse them. Everything else in
// the sandbox still succeeds, as the contract says. README and GET /sandbox/test-data list the table.
import type { PsuScenario, ScenarioOf, SettlementOf, SettlementScenario } from '../domain/scenarios.ts';

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

/**
 * Test creditors at another bank (SEB, clearing number 5000; real check digits) whose payments settle
 * later, as live ones through the clearing do. A payment to them (other-bank-domestic-credit-transfer)
 * executed for today is accepted (ACCP) and settles on the next bank day: advance the app's clock
 * (POST /sandbox/clock) to see it land.
 */
export const SETTLEMENT_CREDITORS = {
  settles: '50009001018',
  closed: '50009001026',
} as const;

const SETTLEMENTS: Readonly<Record<string, SettlementScenario>> = {
  [SETTLEMENT_CREDITORS.settles]: { outcome: 'settled' },
  [SETTLEMENT_CREDITORS.closed]: {
    outcome: 'rejected',
    reasonCode: 'AC04',
    reason: 'the creditor account is closed',
  },
};

export const settlementOf: SettlementOf = (creditorAccount) => SETTLEMENTS[creditorAccount];

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

/**
 * A scenario's trigger as data (beside its sentence): what the TPP does, and with whom or what. `account`
 * is the debtor account (clearing number and account number, as a BBAN) of an execution or authorization,
 * or the IBAN of a funds confirmation; `amount` the payment's or the confirmation's, in SEK.
 */
export interface ScenarioTrigger {
  /**
   * execute: initiate a domestic payment from `account`, authorize it, execute it; authorize: authorize
   * one (redirect and decoupled); decoupled: authorize one decoupled, polling until it ends; consent: ask
   * for a consent with PSU-ID `psuId` and have it approved; read: read the accounts under a consent of
   * `frequencyPerDay` without the PSU, `reads` times; funds-confirmation: confirm `amount` on `account`;
   * settle: execute a payment of `product` to `creditorAccount` (a BBAN), then advance the app's
   * clock by `advance` (POST /sandbox/clock); consent with `advance`: the consent lives for `validDays`
   * days, then the clock is advanced.
   */
  readonly action:
    | 'execute'
    | 'authorize'
    | 'decoupled'
    | 'consent'
    | 'read'
    | 'funds-confirmation'
    | 'settle';
  readonly psuId?: string;
  readonly account?: string;
  readonly amount?: string;
  readonly currency?: string;
  readonly frequencyPerDay?: number;
  readonly reads?: number;
  readonly creditorAccount?: string;
  readonly product?: string;
  /** The advance of the app's sandbox clock (ISO 8601 duration) after the action. */
  readonly advance?: string;
  readonly validDays?: number;
}

/** A scenario's outcome as data: the answers' fields a TPP checks. */
export interface ScenarioOutcome {
  /** The execution's status and reason code (settle: the status once the clock has been advanced). */
  readonly transactionStatus?: string;
  /** settle: the execution's answer, before the settlement. */
  readonly executedStatus?: string;
  readonly reasonCode?: string;
  /** The redirect authorization's `error`. */
  readonly redirectError?: string;
  /** The decoupled token polls in order: each `result`, or the `error` that ends the session. */
  readonly decoupledPolls?: string[];
  /** The consent's status once approved. */
  readonly consentStatus?: string;
  /** The last read's status and tppMessages code. */
  readonly readStatus?: number;
  readonly readCode?: string;
  /** The refresh token's `error`. */
  readonly refreshError?: string;
  readonly fundsAvailable?: boolean;
}

export interface ScenarioRow {
  readonly trigger: string;
  readonly when: ScenarioTrigger;
  readonly outcome: string;
  readonly expected: ScenarioOutcome;
}

const bban = (account: string) => `6000${account}`;
const rejected = (reasonCode: string) => ({ transactionStatus: 'RJCT', reasonCode });
/** What a TPP meets with an expired consent: by Ella's approval, or by the app's clock passing its validity. */
const EXPIRED_CONSENT = {
  consentStatus: 'expired',
  readStatus: 401,
  readCode: 'CONSENT_EXPIRED',
  refreshError: 'invalid_grant',
} as const;

/** The table a TPP reads (README, GET /sandbox/test-data, the sandbox page): what to send, and what happens. */
export const SCENARIO_TABLE: readonly ScenarioRow[] = [
  {
    trigger: `execute a payment from Sam Scenario's account 6000 240000005 (empty)`,
    when: { action: 'execute', psuId: SAM!, account: bban('240000005') },
    outcome: 'RJCT, reasonCode AM04: insufficient funds',
    expected: rejected('AM04'),
  },
  {
    trigger: `execute a payment from Sam Scenario's account 6000 240000013 (blocked)`,
    when: { action: 'execute', psuId: SAM!, account: bban('240000013') },
    outcome: 'RJCT, reasonCode AC06: the debtor account is blocked',
    expected: rejected('AC06'),
  },
  {
    trigger: `execute payments of more than SEK 1,000.00 in a day from Sam Scenario's account 6000 240000021`,
    when: { action: 'execute', psuId: SAM!, account: bban('240000021'), amount: '1000.01', currency: 'SEK' },
    outcome: 'RJCT, reasonCode AM02: the daily limit is exceeded',
    expected: rejected('AM02'),
  },
  {
    trigger: `execute a payment from Sam Scenario's investment savings account (ISK) 6000 240000048`,
    when: { action: 'execute', psuId: SAM!, account: bban('240000048') },
    outcome: 'RJCT, reasonCode AG01: payments cannot be made from this type of account',
    expected: rejected('AG01'),
  },
  {
    trigger: `authorize anything of Dennis Declines (${DENNIS}): his payments, or a consent with PSU-ID ${DENNIS}`,
    when: { action: 'authorize', psuId: DENNIS!, account: bban('240000056') },
    outcome: 'redirect: error=access_denied; decoupled: IN_PROGRESS once, then USER_CANCEL',
    expected: { redirectError: 'access_denied', decoupledPolls: ['IN_PROGRESS', 'USER_CANCEL'] },
  },
  {
    trigger: `decoupled authorization by Sofia Slow (${SOFIA})`,
    when: { action: 'decoupled', psuId: SOFIA!, account: bban('240000064') },
    outcome: 'IN_PROGRESS twice, then COMPLETE',
    expected: { decoupledPolls: ['IN_PROGRESS', 'IN_PROGRESS', 'COMPLETE'] },
  },
  {
    trigger: `authorize anything of Erik Expires (${ERIK})`,
    when: { action: 'authorize', psuId: ERIK!, account: bban('240000072') },
    outcome:
      'redirect: error=access_denied (the page expired); decoupled: IN_PROGRESS once, then intent_expired',
    expected: { redirectError: 'access_denied', decoupledPolls: ['IN_PROGRESS', 'intent_expired'] },
  },
  {
    trigger: `decoupled authorization by Max Polling (${MAX})`,
    when: { action: 'decoupled', psuId: MAX!, account: bban('240000080') },
    outcome: 'IN_PROGRESS twice, then mbid_max_polling',
    expected: { decoupledPolls: ['IN_PROGRESS', 'IN_PROGRESS', 'mbid_max_polling'] },
  },
  {
    trigger: `a consent approved by Ella Expired (${ELLA}, PSU-ID header or decoupled psu_id)`,
    when: { action: 'consent', psuId: ELLA! },
    outcome: 'consentStatus expired; reads 401 CONSENT_EXPIRED; refresh invalid_grant',
    expected: EXPIRED_CONSENT,
  },
  {
    trigger: `a consent approved by Rolf Revoked (${ROLF})`,
    when: { action: 'consent', psuId: ROLF! },
    outcome: 'consentStatus revokedByPsu; reads 401 CONSENT_INVALID; refresh invalid_grant',
    expected: {
      consentStatus: 'revokedByPsu',
      readStatus: 401,
      readCode: 'CONSENT_INVALID',
      refreshError: 'invalid_grant',
    },
  },
  {
    trigger: 'a consent with "frequencyPerDay": 1, read twice a day without PSU-IP-Address',
    when: { action: 'read', frequencyPerDay: 1, reads: 2 },
    outcome: '429 ACCESS_EXCEEDED on the second read of the resource',
    expected: { readStatus: 429, readCode: 'ACCESS_EXCEEDED' },
  },
  {
    trigger:
      "funds confirmation for Sam Scenario's empty account (IBAN SE4760000000000240000005), or for more than a balance",
    when: {
      action: 'funds-confirmation',
      psuId: SAM!,
      account: 'SE4760000000000240000005',
      amount: '1.00',
      currency: 'SEK',
    },
    outcome: '{"fundsAvailable": false}',
    expected: { fundsAvailable: false },
  },
  {
    trigger: `execute a payment to SEB account ${SETTLEMENT_CREDITORS.settles.slice(0, 4)} ${SETTLEMENT_CREDITORS.settles.slice(4)}, then advance the clock past the next bank day`,
    when: {
      action: 'settle',
      product: 'other-bank-domestic-credit-transfer',
      creditorAccount: SETTLEMENT_CREDITORS.settles,
      advance: 'P3D',
    },
    outcome: 'ACCP (pending in the transactions), then ACSC on the next bank day (booked)',
    expected: { executedStatus: 'ACCP', transactionStatus: 'ACSC' },
  },
  {
    trigger: `execute a payment to SEB account ${SETTLEMENT_CREDITORS.closed.slice(0, 4)} ${SETTLEMENT_CREDITORS.closed.slice(4)}, then advance the clock past the next bank day`,
    when: {
      action: 'settle',
      product: 'other-bank-domestic-credit-transfer',
      creditorAccount: SETTLEMENT_CREDITORS.closed,
      advance: 'P3D',
    },
    outcome: 'ACCP, then RJCT on the next bank day, reasonCode AC04: the creditor account is closed',
    expected: { executedStatus: 'ACCP', ...rejected('AC04') },
  },
  {
    trigger: 'a consent valid for 1 day, then advance the clock by 2 days',
    when: { action: 'consent', validDays: 1, advance: 'P2D' },
    outcome: 'consentStatus expired; reads 401 CONSENT_EXPIRED; refresh invalid_grant',
    expected: EXPIRED_CONSENT,
  },
];
