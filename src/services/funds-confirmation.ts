// Confirmation of funds (spec row 16, API-NOTES): is the amount available on the account now? The
// answer is true or false; the account is named by IBAN or by card number.
import { parseIban } from '../domain/account-identifiers.ts';
import { ApiError, apiError } from '../domain/errors.ts';
import { isKnownCurrency, parseAmount } from '../domain/money.ts';
import { convert, sandboxExchange } from '../ports/exchange-rates.ts';
import type { App } from '../store/apps-repository.ts';
import { type AccountRecord, findAccountByIban, findAccountOfCard } from '../store/customers-repository.ts';
import { bookedBalance } from '../store/ledger-repository.ts';
import { type ServiceContext, today } from './context.ts';
import { requireClientToken, type TokenGrant } from './tokens.ts';

export interface FundsRequest {
  readonly account?: { readonly iban: string };
  readonly cardNumber?: string;
  readonly payee?: string;
  readonly instructedAmount: { readonly currency: string; readonly amount: string | number };
}

export async function confirmFunds(
  context: ServiceContext,
  app: App,
  grant: TokenGrant,
  body: FundsRequest,
): Promise<{ fundsAvailable: boolean }> {
  requireClientToken(grant, app.clientId);
  if ((body.account === undefined) === (body.cardNumber === undefined)) {
    throw apiError('FORMAT_ERROR', 'name the account by account.iban or by cardNumber, one of them');
  }
  const currency = body.instructedAmount.currency;
  if (!isKnownCurrency(currency)) {
    throw apiError('FORMAT_ERROR', `currency "${currency}" is not supported`, 'instructedAmount.currency');
  }
  const parsed = parseAmount(body.instructedAmount.amount, currency);
  if (!parsed.ok)
    throw apiError('FORMAT_ERROR', `instructedAmount.amount ${parsed.reason}`, 'instructedAmount.amount');
  let account: AccountRecord | undefined;
  if (body.account !== undefined) {
    const iban = parseIban(body.account.iban);
    if (!iban.ok) throw apiError('FORMAT_ERROR', `account.iban ${iban.reason}`, 'account.iban');
    account = await findAccountByIban(context.db, iban.value.iban);
  } else {
    account = await findAccountOfCard(context.db, body.cardNumber!);
  }
  if (account === undefined) {
    throw new ApiError({ code: 'RESOURCE_UNKNOWN', text: 'The account or card is not one of the bank' }, 404);
  }
  const needed =
    account.currency === currency
      ? parsed.money
      : convert(parsed.money, sandboxExchange(account.currency, currency, today(context)));
  const available = (await bookedBalance(context.db, account.accountId)) ?? 0;
  return { fundsAvailable: needed.minor <= available };
}
