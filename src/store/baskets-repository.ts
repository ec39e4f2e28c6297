// Signing baskets and their payments.
import { asc, eq } from 'drizzle-orm';
import type { Basket } from '../domain/baskets.ts';
import type { Payment } from '../domain/payment.ts';
import type { Db } from './database.ts';
import { type NewPayment, paymentColumns, paymentValues, toPayment } from './payments-repository.ts';
import { payments, signingBaskets } from './schema.ts';

export async function findBasket(db: Db, basketId: string): Promise<Basket | undefined> {
  const rows = await db
    .select({
      basketId: signingBaskets.basketId,
      clientId: signingBaskets.clientId,
      psuId: signingBaskets.psuId,
    })
    .from(signingBaskets)
    .where(eq(signingBaskets.basketId, basketId))
    .limit(1);
  return rows[0];
}

/** Stores a basket and all its payments; the caller's transaction makes it all or nothing. */
export async function insertBasket(
  trx: Db,
  basket: Basket,
  members: readonly (NewPayment & { readonly tppPaymentReference: string })[],
): Promise<void> {
  await trx.insert(signingBaskets).values(basket);
  await trx.insert(payments).values(
    members.map((member) => ({
      ...paymentValues(member),
      basketId: basket.basketId,
      tppPaymentReference: member.tppPaymentReference,
    })),
  );
}

export async function listBasketPayments(db: Db, basketId: string): Promise<Payment[]> {
  const rows = await db
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.basketId, basketId))
    .orderBy(asc(payments.createdAt), asc(payments.paymentId));
  return rows.map(toPayment);
}

/** The basket's payments, locked until the transaction ends (in one order, so lockers never deadlock). */
export async function lockBasketPayments(trx: Db, basketId: string): Promise<Payment[]> {
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.basketId, basketId))
    .orderBy(asc(payments.paymentId))
    .for('update');
  return rows.map(toPayment);
}
