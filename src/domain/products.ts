// The payment products of the contract and where each may be used.

const PAYMENT_PRODUCTS = [
  'handelsbanken-domestic-credit-transfer',
  'other-bank-domestic-credit-transfer',
  'sek-credit-transfer',
  'british-domestic-credit-transfer',
  'sepa-credit-transfer',
  'cross-currency-credit-transfer',
] as const;

export type PaymentProduct = (typeof PAYMENT_PRODUCTS)[number];

export const COUNTRIES = ['SE', 'GB', 'LU', 'NL'] as const;
export type Country = (typeof COUNTRIES)[number];

export type CustomerType = 'private' | 'corporate';

/** How an executed payment settles when it is not future-dated (API-NOTES "Statuses"). */
export type SettlementStatus = 'ACCC' | 'ACSC';

export interface ProductDefinition {
  readonly id: PaymentProduct;
  readonly countries: readonly Country[];
  /** May be initiated as a single payment (sek-credit-transfer is basket-only). */
  readonly single: boolean;
  readonly basket: boolean;
  readonly futureDated: boolean;
  /** Who may use the product on the Swedish v2 paths. */
  readonly seV2Customers: readonly CustomerType[];
  readonly settlement: SettlementStatus;
  /** Longest remittance message, in characters. */
  readonly remittanceMax: number;
}

const DEFINITIONS: readonly ProductDefinition[] = [
  {
    id: 'handelsbanken-domestic-credit-transfer',
    countries: ['SE'],
    single: true,
    basket: true,
    futureDated: true,
    seV2Customers: ['private', 'corporate'],
    settlement: 'ACCC',
    remittanceMax: 14,
  },
  {
    id: 'other-bank-domestic-credit-transfer',
    countries: ['SE'],
    single: true,
    basket: false,
    futureDated: false,
    seV2Customers: ['private', 'corporate'],
    settlement: 'ACSC',
    remittanceMax: 12,
  },
  {
    id: 'sek-credit-transfer',
    countries: ['SE'],
    single: false,
    basket: true,
    futureDated: true,
    seV2Customers: ['private', 'corporate'],
    settlement: 'ACSC',
    remittanceMax: 210,
  },
  {
    id: 'british-domestic-credit-transfer',
    countries: ['GB'],
    single: true,
    basket: false,
    futureDated: true,
    seV2Customers: [],
    settlement: 'ACSC',
    remittanceMax: 18,
  },
  {
    id: 'sepa-credit-transfer',
    countries: ['SE', 'GB', 'LU', 'NL'],
    single: true,
    basket: false,
    futureDated: true,
    seV2Customers: ['corporate'],
    settlement: 'ACSC',
    remittanceMax: 140,
  },
  {
    id: 'cross-currency-credit-transfer',
    countries: ['SE', 'GB', 'LU', 'NL'],
    single: true,
    basket: false,
    futureDated: true,
    seV2Customers: ['private', 'corporate'],
    settlement: 'ACSC',
    remittanceMax: 140,
  },
];

const BY_ID = new Map<string, ProductDefinition>(
  DEFINITIONS.map((definition) => [definition.id, definition]),
);
// The execute and status tables of the contract spell the other-bank product with an s.
BY_ID.set('other-banks-domestic-credit-transfer', BY_ID.get('other-bank-domestic-credit-transfer')!);

/** The product named in a path, under either spelling; undefined when there is none of that name. */
export function findProduct(name: string): ProductDefinition | undefined {
  return BY_ID.get(name);
}

export function isCountry(value: string): value is Country {
  return (COUNTRIES as readonly string[]).includes(value);
}

/** ISO 3166-1 alpha-2 shape: two upper-case letters. */
export function looksLikeCountryCode(value: string): boolean {
  return /^[A-Z]{2}$/.test(value);
}
