// raw(work)'s validation, about as the contract asks: the account references, the amount's format and
// the remittance of a payment body.
import { isObject } from './http.ts';

const AMOUNT = /^\d{1,14}(\.\d{1,2})?$/;
const CURRENCY = /^[A-Z]{3}$/;

/** The account reference's problem, or undefined. */
function accountProblem(value: unknown, name: string): string | undefined {
  if (!isObject(value)) return `${name} is required`;
  if (typeof value.value !== 'string' || !/^[0-9A-Z]{5,34}$/.test(value.value))
    return `${name}.value must be an account number`;
  if (value.accountType !== undefined && value.accountType !== 'BBAN' && value.accountType !== 'IBAN')
    return `${name}.accountType must be BBAN or IBAN`;
  if (value.currency !== undefined && (typeof value.currency !== 'string' || !CURRENCY.test(value.currency)))
    return `${name}.currency must be a currency code`;
  return undefined;
}

export function amountProblem(value: unknown, name: string): string | undefined {
  if (!isObject(value)) return `${name} is required`;
  if (typeof value.currency !== 'string' || !CURRENCY.test(value.currency))
    return `${name}.currency must be a currency code`;
  const amount = typeof value.amount === 'number' ? String(value.amount) : value.amount;
  if (typeof amount !== 'string' || !AMOUNT.test(amount) || Number(amount) <= 0)
    return `${name}.amount must be a positive amount with at most two decimals`;
  return undefined;
}

/** A payment body's problem, or undefined. */
export function paymentProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'the body must be a JSON object';
  const remittance = body.remittanceInformationUnstructured;
  return (
    accountProblem(body.debtorAccount, 'debtorAccount') ??
    accountProblem(body.creditorAccount, 'creditorAccount') ??
    amountProblem(body.instructedAmount, 'instructedAmount') ??
    (remittance !== undefined && (typeof remittance !== 'string' || remittance.length > 140)
      ? 'remittanceInformationUnstructured must be text of at most 140 characters'
      : undefined)
  );
}
