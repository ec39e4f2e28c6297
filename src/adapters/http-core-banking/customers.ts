// What the bank's core banking system says of its customers (docs/core-banking-api.yaml, tag
// customers): who a PSU is, the accounts and credit card accounts the PSU holds, in the bank's order,
// and the cards drawing on them. Personal numbers go in POST bodies, never in URLs and their logs.
import type { Card } from '../../domain/accounts.ts';
import type { CustomerDirectory } from '../../ports/psu-directory.ts';
import {
  CardsAnswer,
  CustomerAccountsAnswer,
  CustomerAnswer,
  CustomerCardAccountsAnswer,
  toAccountRecord,
  toCard,
  toCardAccount,
  toPsu,
} from './answers.ts';
import { CoreBankingContractError, type Read } from './client.ts';

/** The most ids one call of GET /cards takes (the contract's maxItems). */
const CARD_IDS_PER_CALL = 100;

export function httpCustomers(read: Read): CustomerDirectory {
  return {
    async findPsu(psuId) {
      const found = await read('a customer', CustomerAnswer, {
        method: 'POST',
        path: '/customer-lookups',
        body: { psuId },
      });
      return found === undefined ? undefined : toPsu(found);
    },

    async accountsOf(psuId) {
      const found = await read("a customer's accounts", CustomerAccountsAnswer, {
        method: 'POST',
        path: '/customer-accounts',
        body: { psuId },
      });
      return (found?.accounts ?? []).filter((account) => account.psuId === psuId).map(toAccountRecord);
    },

    async cardAccountsOf(psuId) {
      const found = await read("a customer's card accounts", CustomerCardAccountsAnswer, {
        method: 'POST',
        path: '/customer-card-accounts',
        body: { psuId },
      });
      return (found?.cardAccounts ?? []).filter((card) => card.psuId === psuId).map(toCardAccount);
    },

    async cardsOf(accountIds) {
      const asked = new Set(accountIds);
      const cards: Card[] = [];
      for (let start = 0; start < accountIds.length; start += CARD_IDS_PER_CALL) {
        const ids = accountIds.slice(start, start + CARD_IDS_PER_CALL);
        const query = new URLSearchParams(ids.map((id) => ['accountId', id]));
        const found = await read('cards', CardsAnswer, { method: 'GET', path: `/cards?${query}` });
        for (const card of found?.cards ?? []) {
          if ((card.accountId === null) === (card.cardAccountId === null))
            throw new CoreBankingContractError(
              'core banking system, cards: a card must draw on an account or a card account',
            );
          if (asked.has(card.accountId ?? card.cardAccountId!)) cards.push(toCard(card));
        }
      }
      return cards;
    },
  };
}
