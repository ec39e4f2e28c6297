// Confirmation of funds (spec row 16, API-NOTES): is the amount available on the account now? The
// answer is true or false; the account is named by IBAN or by card number.

import { parseIban } from '../../domain/account-identifiers.ts';
import type { App } from '../../domain/apps.ts';
import { ApiError, apiError } from '../../domain/errors.ts';
import { type CurrencyExchange, convert, isKnownCurrency, parseAmount } from '../../domain/money.ts';
import type { FundsSource } from '../../ports/core-banking.ts';
import { requireClientToken, type TokenGrant } from '../access/tokens.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { exchangeOn } from '../shared/exchange.ts';

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
  requireClientToken(grant, app.clientId, ['CBPII', 'PIS']);
  if ((body.account === undefined) === (body.cardNumber === undefined)) {
    throw apiError('FORMAT_ERROR', 'name the account by account.iban or by cardNumber, one of them');
  }
  const currency = body.instructedAmount.currency;
  if (!isKnownCurrency(currency)) {
    throw apiError(
      'FORMAT_ERROR',
      'instructedAmount.currency is not a supported currency',
      'instructedAmount.currency',
    );
  }
  const parsed = parseAmount(body.instructedAmount.amount, currency);
  if (!parsed.ok)
    throw apiError('FORMAT_ERROR', `instructedAmount.amount ${parsed.reason}`, 'instructedAmount.amount');
  const source = await context.coreBanking.availableFunds(fundsSource(body));
  if (source === undefined) {
    throw new ApiError({ code: 'RESOURCE_UNKNOWN', text: 'The account or card is not one of the bank' }, 404);
  }
  const needed =
    source.currency === currency
      ? parsed.money
      : convert(parsed.money, exchange(context, source.currency, currency));
  return { fundsAvailable: needed.minor <= source.availableMinor };
}

/** Today's rate between the account's currency and the amount's; without one the check is refused. */
function exchange(context: ServiceContext, accountCurrency: string, currency: string): CurrencyExchange {
  const rate = exchangeOn(context, accountCurrency, currency, today(context));
  if (rate !== undefined) return rate;
  throw apiError(
    'PARAMETER_NOT_SUPPORTED',
    `the bank has no exchange rate for ${accountCurrency}/${currency} today: an amount in ${currency} cannot be checked against this ${accountCurrency} account`,
    'instructedAmount.currency',
  );
}

/**
 * What the amount is checked against: an account's balance (by IBAN, or by a debit card drawing on
 * it), or for a credit card what is left of its credit limit (the core banking system knows which).
 */
function fundsSource(body: FundsRequest): FundsSource {
  if (body.account === undefined) return { cardNumber: body.cardNumber! };
  const iban = parseIban(body.account.iban);
  if (!iban.ok) throw apiError('FORMAT_ERROR', `account.iban ${iban.reason}`, 'account.iban');
  return { iban: iban.value.iban };
}
