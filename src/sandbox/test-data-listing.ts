// The sandbox test data as GET /sandbox/test-data lists it.
import { listAccounts, listPsus } from '../store/customers-repository.ts';
import type { Db } from '../store/database.ts';
import { SCENARIO_TABLE } from './scenarios.ts';

export interface TestDataAccount {
  accountId: string;
  iban?: string;
  bban?: string;
  clearingNumber?: string;
  currency: string;
  country: string;
  name: string;
  ownerName: string;
}

export interface TestData {
  /** What the scenario PSUs and accounts make happen (src/sandbox/scenarios.ts). */
  scenarios: readonly { trigger: string; outcome: string }[];
  psus: {
    psuId: string;
    name: string;
    type: 'private' | 'corporate';
    corporateId?: string;
    accounts: TestDataAccount[];
  }[];
}

export async function listTestData(db: Db): Promise<TestData> {
  const [psus, accounts] = await Promise.all([listPsus(db), listAccounts(db)]);
  return {
    scenarios: SCENARIO_TABLE,
    psus: psus.map((psu) => ({
      psuId: psu.psuId,
      name: psu.name,
      type: psu.customerType,
      ...(psu.corporateId === null ? {} : { corporateId: psu.corporateId }),
      accounts: accounts
        .filter((account) => account.psuId === psu.psuId)
        .map((account) => ({
          accountId: account.accountId,
          ...(account.iban === null ? {} : { iban: account.iban }),
          ...(account.bban === null ? {} : { bban: account.bban }),
          ...(account.clearingNumber === null ? {} : { clearingNumber: account.clearingNumber }),
          currency: account.currency,
          country: account.country,
          name: account.name,
          ownerName: account.ownerName,
        })),
    })),
  };
}
