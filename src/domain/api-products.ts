// The API products an app subscribes to (spec "App and subscription"), with the version reported and
// the certificate scope each needs.
import type { TppScope } from './psp-roles.ts';

export interface ApiProduct {
  readonly name: string;
  readonly version: string;
  readonly scope: TppScope;
}

const PRODUCTS: readonly ApiProduct[] = [
  { name: 'consents', version: '1.0.0', scope: 'AIS' },
  { name: 'accounts', version: '2.0.0', scope: 'AIS' },
  { name: 'accounts-gb', version: '2.0.0', scope: 'AIS' },
  { name: 'accounts-lu-individual', version: '2.0.0', scope: 'AIS' },
  { name: 'accounts-lu-corporate', version: '2.0.0', scope: 'AIS' },
  { name: 'card-accounts', version: '1.0.0', scope: 'AIS' },
  { name: 'payments', version: '1.0.2', scope: 'PIS' },
  { name: 'payments-gb', version: '1.0.2', scope: 'PIS' },
  { name: 'payments-lu', version: '1.0.2', scope: 'PIS' },
  { name: 'payments-se-corporate', version: '1.0.2', scope: 'PIS' },
  { name: 'payments-se-private', version: '1.0.2', scope: 'PIS' },
  { name: 'funds-confirmations', version: '1.0.0', scope: 'CBPII' },
  { name: 'funds-confirmations-gb', version: '1.0.0', scope: 'CBPII' },
];

export function findApiProduct(name: string): ApiProduct | undefined {
  return PRODUCTS.find((product) => product.name === name);
}
