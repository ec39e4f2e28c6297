// The checker's options: the endpoint and its app (required), the output format, the test accounts
// and PSU a flow uses (sandbox defaults, README "Sandbox test data"), and the time limits.
import { oneOf, parseOptions, required, UsageError } from './cli-args.ts';

const FORMATS = ['table', 'json', 'junit'] as const;
export type Format = (typeof FORMATS)[number];

export interface CheckOptions {
  /** {base_url} of the contract, without a trailing slash. */
  readonly baseUrl: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly format: Format;
  /** A second registered app: proves a code is bound to its client. */
  readonly otherClientId: string | undefined;
  readonly psuId: string;
  readonly psuIpAddress: string;
  /** A private customer's Swedish account (clearing and account number, digits). */
  readonly debtorBban: string;
  /** An account at another Swedish bank. */
  readonly creditorBban: string;
  /** Another account at the bank itself. */
  readonly ownBankCreditorBban: string;
  /** The debtor of the general API's SEPA payment; its country is the Country header. */
  readonly debtorIban: string;
  readonly corporateBban: string;
  readonly corporateId: string;
  readonly timeoutMs: number;
  readonly totalTimeoutMs: number;
}

const DEFAULTS = {
  'psu-id': '191212121212',
  'psu-ip-address': '192.0.2.1',
  'debtor-bban': '6000123456789',
  'creditor-bban': '50001234501',
  'own-bank-creditor-bban': '6789555555550',
  'debtor-iban': 'NL46HAND0254678912',
  'corporate-bban': '6153300000014',
  'corporate-id': '5566778899',
  timeout: '10000',
  'total-timeout': '180000',
} as const;

const OPTIONS = {
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  'redirect-uri': { type: 'string' },
  format: { type: 'string' },
  'other-client-id': { type: 'string' },
  'psu-id': { type: 'string' },
  'psu-ip-address': { type: 'string' },
  'debtor-bban': { type: 'string' },
  'creditor-bban': { type: 'string' },
  'own-bank-creditor-bban': { type: 'string' },
  'debtor-iban': { type: 'string' },
  'corporate-bban': { type: 'string' },
  'corporate-id': { type: 'string' },
  timeout: { type: 'string' },
  'total-timeout': { type: 'string' },
} as const;

export const USAGE = `usage: psd2-gateway check --base-url URL --client-id ID --redirect-uri URI [options]

Runs the contract's flows and negative cases against an endpoint (ours or a peer's) and prints every
deviation with the contract row it breaks. Exit code 0 when no check failed, 1 when one did.
The CONTRACT column cites, in the psd2-gateway repository, the spec ("spec row 6":
docs/contract/spec/payment-initiation-service.md) and the notes on the real service ("API-NOTES":
docs/contract/API-NOTES.md).

  --base-url URL            {base_url} of the contract, e.g. http://localhost:3000 (with any base path)
  --client-id ID            the app-id (X-Gateway-Client-Id, client_id)
  --redirect-uri URI        the app's registered redirect URI
  --format table|json|junit output (default table)
  --other-client-id ID      a second app of the endpoint: proves a code is bound to its client
                            (without it that check is skipped)
  --psu-id ID               the PSU named in account consents (PSU-ID) (default ${DEFAULTS['psu-id']})
  --psu-ip-address IP       PSU-IP-Address sent on every call (default ${DEFAULTS['psu-ip-address']})
  --debtor-bban DIGITS      a private customer's Swedish account (default ${DEFAULTS['debtor-bban']})
  --creditor-bban DIGITS    an account at another Swedish bank (default ${DEFAULTS['creditor-bban']})
  --own-bank-creditor-bban DIGITS
                            another account at the bank (default ${DEFAULTS['own-bank-creditor-bban']})
  --debtor-iban IBAN        the general API's SEPA debtor; Country is its country
                            (default ${DEFAULTS['debtor-iban']})
  --corporate-bban DIGITS   a corporate customer's Swedish SEK account (default ${DEFAULTS['corporate-bban']})
  --corporate-id ID         that corporate's PSU-Corporate-ID (default ${DEFAULTS['corporate-id']})
  --timeout MS              longest wait for one answer (default ${DEFAULTS.timeout})
  --total-timeout MS        longest run; checks left then are skipped (default ${DEFAULTS['total-timeout']})

The defaults are the sandbox's test data (README "Sandbox test data"): the payments come from
Tolvan Tolvansson, decoupled authorizations complete at once, and the general API pays from Jan de
Vries's Dutch account.`;

function url(value: string, name: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new UsageError(`--${name} must be an absolute http or https URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--${name} must be an absolute http or https URL`);
  }
  return value;
}

function milliseconds(value: string, name: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 3_600_000) {
    throw new UsageError(`--${name} must be a whole number of milliseconds, 1 to 3600000`);
  }
  return number;
}

function iban(value: string): string {
  const compact = value.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/.test(compact)) throw new UsageError('--debtor-iban must be an IBAN');
  return compact;
}

export function parseCheckOptions(args: readonly string[]): CheckOptions {
  const { values } = parseOptions(args, OPTIONS);
  const value = (name: keyof typeof DEFAULTS): string => values[name] ?? DEFAULTS[name];
  const baseUrl = url(required(values['base-url'], 'base-url'), 'base-url').replace(/\/+$/, '');
  return {
    baseUrl,
    clientId: required(values['client-id'], 'client-id'),
    redirectUri: url(required(values['redirect-uri'], 'redirect-uri'), 'redirect-uri'),
    format: oneOf(values.format, 'format', FORMATS, 'table'),
    otherClientId: values['other-client-id'] || undefined,
    psuId: value('psu-id'),
    psuIpAddress: value('psu-ip-address'),
    debtorBban: value('debtor-bban'),
    creditorBban: value('creditor-bban'),
    ownBankCreditorBban: value('own-bank-creditor-bban'),
    debtorIban: iban(value('debtor-iban')),
    corporateBban: value('corporate-bban'),
    corporateId: value('corporate-id'),
    timeoutMs: milliseconds(value('timeout'), 'timeout'),
    totalTimeoutMs: milliseconds(value('total-timeout'), 'total-timeout'),
  };
}
