// Payment initiation (spec rows 6 and 7): the general API with a Country header and the Swedish v2
// single-payment API. Validates the body by the product's rules, finds the debtor's account, checks
// who may pay from it, stores the payment in ACTC and answers its id and SCA methods.
import type { BankAccount } from '../../domain/accounts.ts';
import type { App } from '../../domain/apps.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { type CorporateHeaders, checkCorporateHeaders } from '../../domain/corporate.ts';
import { ApiError, apiError, type TppMessage } from '../../domain/errors.ts';
import {
  acceptedContent,
  type NotificationContent,
  type NotificationSubscription,
} from '../../domain/notifications.ts';
import { checkDebtorAccount, type PaymentBody, validatePaymentBody } from '../../domain/payment-rules.ts';
import {
  type Country,
  type CustomerType,
  findProduct,
  type ProductDefinition,
} from '../../domain/products.ts';
import { newId } from '../../domain/secrets.ts';
import { insertPaymentAnswering } from '../../store/payments/insert.ts';
import { requireClientToken, type TokenGrant } from '../access/tokens.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { noExchangeToday } from '../shared/exchange.ts';
import { type Answer, storeOnce, underKey } from '../shared/idempotency.ts';
import { type ScaMethod, scaMethods } from '../shared/sca-methods.ts';
import { debtorAccountOf } from './debtor-accounts.ts';

/** Which API the payment came through. */
export type Channel =
  | { readonly api: 'general'; readonly country: Country }
  | { readonly api: 'country'; readonly country: 'GB' | 'LU' }
  | { readonly api: 'se-v2'; readonly customerType: CustomerType };

export interface InitiationRequest {
  readonly app: App;
  readonly grant: TokenGrant;
  /** The Idempotency-Key header, if sent. */
  readonly idempotencyKey: string | undefined;
  readonly channel: Channel;
  readonly productName: string;
  readonly body: PaymentBody;
  readonly corporate: CorporateHeaders;
  /** Origin and base path for the links we hand out. */
  readonly baseUrl: string;
  /** Who asks, for the audit trail. */
  readonly actor?: AuditActor;
  /** The TPP's subscription to the payment's status notifications (TPP-Notification-URI), if any. */
  readonly notification?: NotificationSubscription | undefined;
}

export interface InitiationResponse {
  readonly paymentId: string;
  readonly scaMethods: readonly ScaMethod[];
  readonly transactionStatus: 'ACTC';
  /** What the subscription was accepted for, when there is one. */
  readonly tppNotificationContentPreferred?: readonly NotificationContent[];
}

export async function initiatePayment(
  context: ServiceContext,
  request: InitiationRequest,
): Promise<Answer<InitiationResponse>> {
  requireClientToken(request.grant, request.app.clientId);
  const product = initiationProduct(request.productName);
  const country = request.channel.api === 'se-v2' ? 'SE' : request.channel.country;
  checkProductAllowed(product, request.channel, country);
  checkCorporateHeaders(
    request.corporate,
    request.channel.api === 'se-v2' && request.channel.customerType === 'corporate',
  );
  const validated = validatePaymentBody(product, request.body, { country, today: today(context) });
  if (!validated.ok) throw new ApiError(validated.messages);
  const instruction = validated.value;
  const keyed = {
    clientId: request.app.clientId,
    operation: 'initiate',
    key: request.idempotencyKey,
    request: {
      channel: request.channel,
      product: product.id,
      body: request.body,
      corporate: request.corporate,
      notification: request.notification,
    },
  } as const;
  // No transaction: the lookups only read, and the payment (with its answer, under an Idempotency-Key)
  // is stored in one statement. With a key, the key is claimed before the lookups: a retry meanwhile
  // answers 409, a retry after the first answer its answer.
  return underKey(context, keyed, async (claim) => {
    const account = await debtorAccountOf(context, instruction.debtor);
    if (account === undefined) throw new ApiError(UNPAYABLE_DEBTOR);
    const customerType = checkPayer(request, account);
    const problems = checkDebtorAccount(instruction, request.body, {
      country: account.country,
      currency: account.currency,
      accountType: account.accountType,
      ownerType: customerType,
    });
    if (noExchangeToday(context, account.currency, instruction.amount.currency)) {
      problems.push({
        code: 'PAYMENT_FAILED',
        path: 'instructedAmount.currency',
        text: `the bank has no exchange rate for ${account.currency}/${instruction.amount.currency} today: a payment in ${instruction.amount.currency} cannot be made from this ${account.currency} account`,
      });
    }
    if (problems.length > 0) throw new ApiError(problems);
    const paymentId = newId();
    const answer: Answer<InitiationResponse> = {
      statusCode: 200,
      body: {
        paymentId,
        scaMethods: scaMethods(request.baseUrl, country),
        transactionStatus: 'ACTC',
        ...acceptedContent(request.notification),
      },
    };
    const payment = {
      id: paymentId,
      clientId: request.app.clientId,
      customerType,
      psuId: account.psuId,
      corporateId: customerType === 'corporate' ? (request.corporate.id ?? null) : null,
      debtorAccountId: account.accountId,
      debtorCurrency: account.currency,
      instruction,
      notification: request.notification,
    };
    return storeOnce(
      context.db,
      claim,
      answer,
      (recorded) => insertPaymentAnswering(context.db, payment, recorded, request.actor),
      () => context.metrics.paymentStatus(product.id, 'ACTC'),
    );
  });
}

/** Initiation takes the product name exactly as the contract spells it for initiation. */
export function initiationProduct(name: string): ProductDefinition {
  const product = findProduct(name);
  if (product === undefined || product.id !== name) {
    const hint = product === undefined ? '' : `; initiation spells it ${product.id}`;
    throw apiError(
      'PRODUCT_UNKNOWN',
      `The path names no payment product of the bank${hint}`,
      'paymentProduct',
    );
  }
  return product;
}

function checkProductAllowed(product: ProductDefinition, channel: Channel, country: Country): void {
  if (!product.countries.includes(country)) {
    throw apiError('PRODUCT_INVALID', `${product.id} is not offered in ${country}`);
  }
  if (!product.single) {
    throw apiError('PRODUCT_INVALID', `${product.id} is available only in a signing basket`);
  }
  if (channel.api === 'se-v2' && !product.seV2Customers.includes(channel.customerType)) {
    throw apiError('PRODUCT_INVALID', `${product.id} is not offered to ${channel.customerType} customers`);
  }
}

/**
 * One answer for a debtor account the bank does not have and for one this request may not pay from
 * (another kind of customer's, another corporate's): no answer says whose an account is (issue 37).
 */
export const UNPAYABLE_DEBTOR: TppMessage = {
  code: 'PAYMENT_FAILED',
  path: 'debtorAccount.value',
  text: 'the debtor account is not one this request can pay from: an account at the bank of a private customer (without PSU-Corporate-ID) or of the corporate in PSU-Corporate-ID, and under Sweden v2 of the customer type in the path',
};

/** The owner of the debtor account must be the kind of customer the path is for, and the corporate named. */
export function checkPayer(
  request: Pick<InitiationRequest, 'channel' | 'corporate'>,
  account: BankAccount,
): CustomerType {
  const { channel, corporate } = request;
  const pathFits = channel.api !== 'se-v2' || channel.customerType === account.ownerType;
  const corporateFits =
    account.ownerType === 'corporate'
      ? corporate.id !== undefined && corporate.id === account.ownerCorporateId
      : corporate.id === undefined;
  if (!pathFits || !corporateFits) throw new ApiError(UNPAYABLE_DEBTOR);
  return account.ownerType;
}
