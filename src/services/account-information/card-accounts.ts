// Card accounts (general API only): the consenting PSU's credit card accounts with their cards
// (masked PANs only), credit limit, balances (booked: negative, owed; available: the limit less what is
// owed) and transactions.
import type { CardAccountRecord } from '../../domain/accounts.ts';
import { unknownResource } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import type { ServiceContext } from '../shared/context.ts';
import {
  bookedTransactions,
  MAX_TRANSACTIONS,
  type Transaction,
  transactionPeriod,
} from './account-views.ts';
import type { AisCall } from './accounts.ts';
import { consentedPsu } from './consents.ts';

export interface CardAccountView {
  readonly accountId: string;
  readonly cards: readonly { maskedPan: string; name: string }[];
  readonly currency: string;
  readonly product: string;
  readonly creditLimit: { readonly currency: string; readonly amount: string };
  readonly balances: readonly {
    balanceType: 'booked' | 'available';
    balanceAmount: { currency: string; amount: string };
  }[];
}

interface CardAccountWithBalance extends CardAccountRecord {
  readonly bookedMinor: number;
}

async function cardAccountsOf(context: ServiceContext, psuId: string): Promise<CardAccountWithBalance[]> {
  const cardAccounts = await context.psuDirectory.cardAccountsOf(psuId);
  const balances = await context.coreBanking.balances(
    cardAccounts.map((cardAccount) => cardAccount.cardAccountId),
  );
  return cardAccounts.map((cardAccount) =>
    Object.assign({}, cardAccount, { bookedMinor: balances.get(cardAccount.cardAccountId) ?? 0 }),
  );
}

async function cardAccountViews(
  context: ServiceContext,
  cardAccounts: readonly CardAccountWithBalance[],
): Promise<CardAccountView[]> {
  const cards = await context.psuDirectory.cardsOf(
    cardAccounts.map((cardAccount) => cardAccount.cardAccountId),
  );
  return cardAccounts.map((cardAccount) => {
    const amount = (minor: number) => ({
      currency: cardAccount.currency,
      amount: formatAmount({ currency: cardAccount.currency, minor }),
    });
    return {
      accountId: cardAccount.cardAccountId,
      cards: cards
        .filter((card) => card.cardAccountId === cardAccount.cardAccountId)
        .map(({ maskedPan, name }) => ({ maskedPan, name })),
      currency: cardAccount.currency,
      product: cardAccount.product,
      creditLimit: amount(cardAccount.creditLimitMinor),
      balances: [
        { balanceType: 'booked', balanceAmount: amount(cardAccount.bookedMinor) },
        // What can still be spent: the credit limit less what is owed.
        {
          balanceType: 'available',
          balanceAmount: amount(cardAccount.creditLimitMinor + cardAccount.bookedMinor),
        },
      ],
    };
  });
}

export async function listConsentedCardAccounts(
  context: ServiceContext,
  call: AisCall,
): Promise<{ cardAccounts: CardAccountView[] }> {
  const psuId = await consentedPsu(context, call.app, call.grant, call.read);
  return { cardAccounts: await cardAccountViews(context, await cardAccountsOf(context, psuId)) };
}

/** One of the consenting PSU's card accounts: any other id, another's card account too, is unknown. */
export async function readConsentedCardAccount(
  context: ServiceContext,
  call: AisCall,
  cardAccountId: string,
): Promise<CardAccountView> {
  const psuId = await consentedPsu(context, call.app, call.grant, call.read);
  const found = (await cardAccountsOf(context, psuId)).find(
    (candidate) => candidate.cardAccountId === cardAccountId,
  );
  if (found === undefined) throw unknownResource('There is no such card account');
  return (await cardAccountViews(context, [found]))[0]!;
}

export async function readCardAccountBalances(
  context: ServiceContext,
  call: AisCall,
  cardAccountId: string,
): Promise<{ accountId: string; balances: CardAccountView['balances'] }> {
  const view = await readConsentedCardAccount(context, call, cardAccountId);
  return { accountId: cardAccountId, balances: view.balances };
}

export async function readCardAccountTransactions(
  context: ServiceContext,
  call: AisCall,
  cardAccountId: string,
  query: { dateFrom?: string; dateTo?: string },
): Promise<{ accountId: string; transactions: Transaction[] }> {
  const period = transactionPeriod(context, query);
  await readConsentedCardAccount(context, call, cardAccountId);
  return {
    accountId: cardAccountId,
    transactions: await bookedTransactions(context, cardAccountId, period, MAX_TRANSACTIONS),
  };
}
