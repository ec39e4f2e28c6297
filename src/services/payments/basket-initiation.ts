// Swedish signing baskets (issue 5): POST /psd2/se/v2/payments/{private|corporate}/signing-basket. The basket is
// validated as a whole: one bad payment refuses it, naming the payment by index and reference, and
// nothing is stored. One PSU signs a basket, so all debtor accounts are that PSU's.

import type { BankAccount } from '../../domain/accounts.ts';
import type { App } from '../../domain/apps.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { type CorporateHeaders, checkCorporateHeaders } from '../../domain/corporate.ts';
import { ApiError, type TppMessage } from '../../domain/errors.ts';
import {
  acceptedContent,
  type NotificationContent,
  type NotificationSubscription,
} from '../../domain/notifications.ts';
import {
  checkDebtorAccount,
  type PaymentBody,
  type PaymentInstruction,
  validatePaymentBody,
} from '../../domain/payment-rules.ts';
import type { CustomerType } from '../../domain/products.ts';
import { newId } from '../../domain/secrets.ts';
import { type BasketMember, insertBasketAnswering } from '../../store/baskets-repository.ts';
import { requireClientToken, type TokenGrant } from '../access/tokens.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { type Answer, storeOnce, underKey } from '../shared/idempotency.ts';
import { debtorAccountOf } from './debtor-accounts.ts';
import { checkPayer, initiationProduct, UNPAYABLE_DEBTOR } from './initiation.ts';

export interface BasketItem extends PaymentBody {
  readonly paymentProduct: string;
  readonly tppPaymentReference: string;
}

export interface BasketRequest {
  readonly app: App;
  readonly grant: TokenGrant;
  /** The Idempotency-Key header, if sent. */
  readonly idempotencyKey: string | undefined;
  /** The path's customer type: a corporate basket names its corporate in the corporate headers. */
  readonly customerType: CustomerType;
  readonly payments: readonly BasketItem[];
  readonly corporate: CorporateHeaders;
  /** Who asks, for the audit trail. */
  readonly actor?: AuditActor;
  /** The TPP's subscription to the basket's notifications (its payments' status moves), if any. */
  readonly notification?: NotificationSubscription | undefined;
}

export interface BasketResponse {
  readonly payments: readonly { readonly paymentId: string; readonly tppPaymentReference: string }[];
  /** Spelled so in the initiation answer (spec "Payment initiation response"). */
  readonly signingBaskedId: string;
  readonly tppNotificationContentPreferred?: readonly NotificationContent[];
}

export async function initiateBasket(
  context: ServiceContext,
  request: BasketRequest,
): Promise<Answer<BasketResponse>> {
  requireClientToken(request.grant, request.app.clientId);
  const { customerType } = request;
  checkCorporateHeaders(request.corporate, customerType === 'corporate');
  const channel = { api: 'se-v2', customerType } as const;
  const date = today(context);
  const messages: TppMessage[] = [];
  const instructions: (PaymentInstruction | undefined)[] = request.payments.map((item, index) => {
    const problems = (found: readonly TppMessage[]) =>
      messages.push(...found.map((message) => within(index, message)));
    let product: ReturnType<typeof initiationProduct>;
    try {
      product = initiationProduct(item.paymentProduct);
    } catch (error) {
      problems((error as ApiError).messages);
      return undefined;
    }
    if (!product.basket || !product.seV2Customers.includes(customerType)) {
      problems([
        {
          code: 'PRODUCT_INVALID',
          path: 'paymentProduct',
          text: `${product.id} cannot be part of a signing basket`,
        },
      ]);
      return undefined;
    }
    const validated = validatePaymentBody(product, item, { country: 'SE', today: date });
    if (!validated.ok) problems(validated.messages);
    return validated.ok ? validated.value : undefined;
  });
  const references = request.payments.map((item) => item.tppPaymentReference);
  references.forEach((reference, index) => {
    if (references.indexOf(reference) !== index) {
      messages.push(
        within(index, {
          code: 'FORMAT_ERROR',
          path: 'tppPaymentReference',
          text: 'tppPaymentReference must be unique within the basket',
        }),
      );
    }
  });
  if (messages.length > 0) throw new ApiError(messages);

  // A basket is mostly paid from one or two accounts: each distinct account is looked up once, all at once.
  const lookups = new Map<string, Promise<BankAccount | undefined>>();
  const found = (instructions as PaymentInstruction[]).map((instruction) => {
    const key = JSON.stringify(instruction.debtor);
    if (!lookups.has(key)) lookups.set(key, debtorAccountOf(context, instruction.debtor));
    return lookups.get(key)!;
  });
  const debtorAccounts = await Promise.all(found);
  const accounts: BankAccount[] = [];
  for (const [index, instruction] of (instructions as PaymentInstruction[]).entries()) {
    const item = request.payments[index]!;
    const account = debtorAccounts[index];
    if (account === undefined) {
      messages.push(within(index, UNPAYABLE_DEBTOR));
      continue;
    }
    try {
      checkPayer({ channel, corporate: request.corporate }, account);
    } catch (error) {
      messages.push(...(error as ApiError).messages.map((message) => within(index, message)));
      continue;
    }
    const facts = {
      country: account.country,
      currency: account.currency,
      accountType: account.accountType,
      ownerType: account.ownerType,
    };
    messages.push(...checkDebtorAccount(instruction, item, facts).map((message) => within(index, message)));
    if (accounts[0] !== undefined && account.psuId !== accounts[0].psuId) {
      messages.push(
        within(index, {
          code: 'PAYMENT_FAILED',
          path: 'debtorAccount.value',
          text: "every payment of a basket is paid from the same PSU's accounts",
        }),
      );
    }
    accounts.push(account);
  }
  if (messages.length > 0) throw new ApiError(messages);

  const basketId = newId();
  const members = (instructions as PaymentInstruction[]).map((instruction, index) => ({
    id: newId(),
    debtorAccountId: accounts[index]!.accountId,
    debtorCurrency: accounts[index]!.currency,
    instruction,
    tppPaymentReference: request.payments[index]!.tppPaymentReference,
  })) satisfies BasketMember[];
  const answer: Answer<BasketResponse> = {
    statusCode: 200,
    body: {
      payments: members.map((member) => ({
        paymentId: member.id,
        tppPaymentReference: member.tppPaymentReference,
      })),
      signingBaskedId: basketId,
      ...acceptedContent(request.notification),
    },
  };
  // One statement stores the basket, its payments and, under an Idempotency-Key, the answer, or nothing
  // when the key's claim was lost. The key is claimed after the checks (as a basket's reads are few).
  const keyed = {
    clientId: request.app.clientId,
    operation: 'basket',
    key: request.idempotencyKey,
    request: {
      customerType,
      payments: request.payments,
      corporate: request.corporate,
      notification: request.notification,
    },
  } as const;
  return underKey(context, keyed, (claim) =>
    storeOnce(
      context.db,
      claim,
      answer,
      (recorded) =>
        insertBasketAnswering(context.db, {
          basket: { basketId, clientId: request.app.clientId, psuId: accounts[0]!.psuId },
          customerType,
          corporateId: customerType === 'corporate' ? (request.corporate.id ?? null) : null,
          members,
          answer: recorded,
          actor: request.actor,
          notification: request.notification,
        }),
      () => {
        for (const member of members) context.metrics.paymentStatus(member.instruction.product, 'ACTC');
      },
    ),
  );
}

/** A basket payment's problem, named by its index (its reference is the caller's text: never repeated). */
function within(index: number, message: TppMessage): TppMessage {
  return {
    code: message.code,
    path: `payments[${index}]${message.path === undefined ? '' : `.${message.path}`}`,
    text: `payment ${index}: ${message.text}`,
  };
}
