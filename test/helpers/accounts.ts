// An account as the account-information APIs answer it, from the sandbox test data: version 1 (the
// whole account number, balances booked and available) or version 2 (the real service's records: bban
// without the clearing number, AVAILABLE_AMOUNT).
import type { ACCOUNTS } from './payments.ts';

type Row = (typeof ACCOUNTS)[keyof typeof ACCOUNTS];

export function expectedAccount(
  row: Row,
  url: string,
  options: { balance?: string; prefix?: string; version?: 1 | 2 } = {},
) {
  const { balance, prefix = '/psd2/v1', version = 1 } = options;
  const amount = { content: balance, currency: row.currency };
  const bban =
    version === 2 && row.bban !== null && row.clearingNumber !== null
      ? row.bban.slice(row.clearingNumber.length)
      : row.bban;
  return {
    accountId: row.accountId,
    ...(row.iban === null ? {} : { iban: row.iban }),
    ...(bban === null ? {} : { bban }),
    ...(row.clearingNumber === null ? {} : { clearingNumber: row.clearingNumber }),
    ...(row.bic === null ? {} : { bic: row.bic }),
    currency: row.currency,
    accountType: row.accountType,
    name: row.name,
    ownerName: row.ownerName,
    ...(balance === undefined
      ? {}
      : {
          balances: [
            { amount, balanceType: 'booked' },
            { amount, balanceType: version === 2 ? 'AVAILABLE_AMOUNT' : 'available' },
          ],
        }),
    _links: { transactions: { href: `${url}${prefix}/accounts/${row.accountId}/transactions` } },
  };
}
