// raw(work)'s account information routes: the funds check against a balance, the PSU's account list and
// an account's transactions from dateFrom on, built from what raw(work) knows.
import { fail, isObject, parseJson, send } from './http.ts';
import { amountProblem } from './validation.ts';
import type { RawData, WorkCall } from './work-data.ts';

/** POST /psd2/v1/funds-confirmations: does the account's balance cover the amount. */
export function confirmFunds({ response, text }: WorkCall, data: RawData): void {
  const body = parseJson(text);
  const account = isObject(body) && isObject(body.account) ? body.account.iban : undefined;
  const problem =
    typeof account !== 'string'
      ? 'account.iban is required'
      : amountProblem(isObject(body) ? body.instructedAmount : undefined, 'instructedAmount');
  if (problem !== undefined) {
    fail(response, 400, 'FORMAT_ERROR', problem);
    return;
  }
  const found = data.byIban.get(account as string);
  if (found === undefined) {
    fail(response, 400, 'RESOURCE_UNKNOWN', 'No such account');
    return;
  }
  const amount = Math.round(
    Number(((body as Record<string, Record<string, unknown>>).instructedAmount!.amount as string) ?? 0) * 100,
  );
  send(response, 200, { fundsAvailable: found.balanceMinor >= amount });
}

/** GET /psd2/v1/accounts: the PSU's accounts with their balances. */
export function listAccounts({ response, psu, origin }: WorkCall, data: RawData): void {
  const accounts = data.accountsOf.get(psu) ?? [];
  const money = (minor: number) => ({ content: (minor / 100).toFixed(2), currency: 'SEK' });
  send(response, 200, {
    accounts: accounts.map((account) => ({
      accountId: account.resourceId,
      currency: account.currency,
      accountType: 'CACC',
      name: account.name,
      ownerName: account.ownerName,
      _links: { transactions: { href: `${origin}/psd2/v1/accounts/${account.resourceId}/transactions` } },
      iban: account.iban,
      bban: account.bban,
      clearingNumber: account.bban.slice(0, 4),
      bic: 'HANDSESS',
      balances: [
        { amount: money(account.balanceMinor), balanceType: 'booked' },
        { amount: money(account.balanceMinor), balanceType: 'available' },
      ],
    })),
  });
}

/** GET .../{accountId}/transactions?dateFrom=: the account's bookings from dateFrom on, newest first. */
export function listTransactions({ response, psu, url, parts }: WorkCall, data: RawData): void {
  const accountId = parts.at(-2)!;
  const dateFrom = url.searchParams.get('dateFrom');
  const owned = (data.accountsOf.get(psu) ?? []).find((account) => account.resourceId === accountId);
  if (owned === undefined || dateFrom === null || !/^\d{4}-\d{2}-\d{2}$/.test(dateFrom)) {
    fail(response, 400, 'FORMAT_ERROR', 'an account of the consent and dateFrom are required');
    return;
  }
  const transactions = [];
  // Newest first, as the gateway answers.
  for (const booking of data.history.get(accountId) ?? []) {
    if (booking.bookingDate < dateFrom) continue;
    const debit = booking.amountMinor < 0;
    transactions.push({
      amount: { content: (Math.abs(booking.amountMinor) / 100).toFixed(2), currency: owned.currency },
      transactionDate: booking.bookingDate,
      valueDate: booking.bookingDate,
      creditDebit: debit ? 'DEBITED' : 'CREDITED',
      status: 'BOOKED',
      bookingDate: booking.bookingDate,
      ledgerDate: booking.bookingDate,
      creditorName: debit ? booking.counterpart : owned.ownerName,
      debtorName: debit ? owned.ownerName : booking.counterpart,
      remittanceInformation: booking.remittance,
    });
  }
  transactions.sort((a, b) => (a.bookingDate < b.bookingDate ? 1 : a.bookingDate > b.bookingDate ? -1 : 0));
  send(response, 200, { accountId, transactions });
}
