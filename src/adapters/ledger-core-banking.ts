// The built-in core banking system: a double-entry ledger. Executing a payment books it in the
// caller's transaction, with the debtor account's row locked: the debtor is debited in its currency;
// within the bank the creditor account is credited, otherwise the bank's clearing account for the
// currency; a payment in another currency than the account's goes through the bank's fx accounts.
// Live, the bank rejects what the account cannot pay; the sandbox books against generous balances.
import { randomUUID } from 'node:crypto';
import { statusAfterExecution } from '../domain/payment.ts';
import { ACCOUNT_TYPE_NOT_FOR_OTHER_BANKS } from '../domain/payment-rules.ts';
import { findProduct } from '../domain/products.ts';
import { type CoreBanking, type ExecutionResult, findDebtorAccount } from '../ports/core-banking.ts';
import { convert, sandboxExchange } from '../ports/exchange-rates.ts';
import {
  debitedOn,
  type Entry,
  entriesSum,
  findLedgerAccountByNumber,
  insertBooking,
  lockLedgerAccount,
  remittanceOfPayment,
} from '../store/ledger-repository.ts';

const reject = (reasonCode: string, reason: string): ExecutionResult => ({
  status: 'RJCT',
  reasonCode,
  reason,
});

export function ledgerCoreBanking(options: { readonly enforceFunds: boolean }): CoreBanking {
  return {
    findDebtorAccount,

    async execute(trx, payment, today) {
      const settled = statusAfterExecution(payment, findProduct(payment.product)!.settlement, today);
      // A payment dated later waits; it is booked (or rejected) on its date.
      if (settled === 'ACCP') return { status: 'ACCP' };
      const account = await lockLedgerAccount(trx, payment.debtorAccountId);
      if (account === undefined) throw new Error(`payment ${payment.id} has no debtor account`);
      const exchange =
        payment.amount.currency === account.currency
          ? undefined
          : sandboxExchange(account.currency, payment.amount.currency, today);
      const debit = exchange === undefined ? payment.amount : convert(payment.amount, exchange);
      if (options.enforceFunds) {
        if (account.blocked) return reject('AC06', 'the debtor account is blocked');
        if (
          payment.product === 'other-bank-domestic-credit-transfer' &&
          account.accountType === ACCOUNT_TYPE_NOT_FOR_OTHER_BANKS
        ) {
          return reject('AG01', 'payments to other banks cannot be made from this type of account');
        }
        const available = account.openingMinor + (await entriesSum(trx, account.accountId));
        if (debit.minor > available) return reject('AM04', 'insufficient funds on the debtor account');
        if (
          account.dailyLimitMinor !== null &&
          (await debitedOn(trx, account.accountId, today)) + debit.minor > account.dailyLimitMinor
        ) {
          return reject('AM02', 'the daily limit of the debtor account is exceeded');
        }
      }
      const entries: Entry[] = [
        { ledgerAccount: account.accountId, currency: debit.currency, amountMinor: -debit.minor },
      ];
      if (exchange !== undefined) {
        entries.push(
          { ledgerAccount: `fx:${debit.currency}`, currency: debit.currency, amountMinor: debit.minor },
          {
            ledgerAccount: `fx:${payment.amount.currency}`,
            currency: payment.amount.currency,
            amountMinor: -payment.amount.minor,
          },
        );
      }
      const internal =
        settled === 'ACCC' ? await findLedgerAccountByNumber(trx, payment.creditorAccount) : undefined;
      const creditor =
        internal !== undefined && internal.currency === payment.amount.currency
          ? internal.accountId
          : `clearing:${payment.amount.currency}`;
      entries.push({
        ledgerAccount: creditor,
        currency: payment.amount.currency,
        amountMinor: payment.amount.minor,
      });
      const initiatedOn = payment.createdAt.toISOString().slice(0, 10);
      const booked = await insertBooking(
        trx,
        {
          bookingId: randomUUID(),
          paymentId: payment.id,
          bookedOn: today,
          transactionDate: [initiatedOn, today].sort()[0]!,
          debtorName: account.ownerName,
          creditorName: payment.creditorName ?? internal?.ownerName ?? null,
          remittance: remittanceOfPayment(payment.id),
          createdAt: new Date(),
        },
        entries,
      );
      if (!booked) throw new Error(`payment ${payment.id} is booked already`);
      return { status: settled };
    },
  };
}
