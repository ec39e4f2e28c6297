// Decoupled authorization sessions (the TPP's side) and the built-in e-ID simulator's orders.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { decoupledSessions, eidOrders } from './schema.ts';

export type SessionRow = typeof decoupledSessions.$inferSelect;
export type OrderRow = typeof eidOrders.$inferSelect;

export async function insertSession(db: Db, session: typeof decoupledSessions.$inferInsert): Promise<void> {
  await db.insert(decoupledSessions).values(session);
}

export async function findSession(db: Db, sessionHash: string): Promise<SessionRow | undefined> {
  const rows = await db
    .select()
    .from(decoupledSessions)
    .where(eq(decoupledSessions.sessionHash, sessionHash))
    .limit(1);
  return rows[0];
}

/** Reads a session and locks it until the transaction ends: one poll at a time per session. */
export async function lockSession(trx: Db, sessionHash: string): Promise<SessionRow | undefined> {
  const rows = await trx
    .select()
    .from(decoupledSessions)
    .where(eq(decoupledSessions.sessionHash, sessionHash))
    .limit(1)
    .for('update');
  return rows[0];
}

export async function updateSession(
  db: Db,
  sessionHash: string,
  changes: Partial<Pick<SessionRow, 'state' | 'polls' | 'earlyPolls' | 'lastPollAt' | 'endedAt'>>,
): Promise<void> {
  await db.update(decoupledSessions).set(changes).where(eq(decoupledSessions.sessionHash, sessionHash));
}

export async function insertOrder(db: Db, order: typeof eidOrders.$inferInsert): Promise<void> {
  await db.insert(eidOrders).values(order);
}

export async function findOrder(db: Db, orderRef: string): Promise<OrderRow | undefined> {
  const rows = await db.select().from(eidOrders).where(eq(eidOrders.orderRef, orderRef)).limit(1);
  return rows[0];
}

export async function findOrderByToken(db: Db, column: 'autoStartToken' | 'qrStartToken', token: string) {
  const rows = await db.select().from(eidOrders).where(eq(eidOrders[column], token)).limit(1);
  return rows[0];
}

export async function findOrderByTicket(db: Db, signTicketHash: string): Promise<OrderRow | undefined> {
  const rows = await db.select().from(eidOrders).where(eq(eidOrders.signTicketHash, signTicketHash)).limit(1);
  return rows[0];
}

export async function findPendingOrders(db: Db, personalNumber: string): Promise<OrderRow[]> {
  return db
    .select()
    .from(eidOrders)
    .where(and(eq(eidOrders.personalNumber, personalNumber), eq(eidOrders.status, 'pending')))
    .orderBy(eidOrders.createdAt);
}

/** Changes a pending order; answers false when it was no longer pending. */
export async function updatePendingOrder(
  db: Db,
  orderRef: string,
  changes: Partial<Pick<OrderRow, 'status' | 'hintCode' | 'startedAt' | 'endedAt' | 'signTicketHash'>>,
): Promise<boolean> {
  const rows = await db
    .update(eidOrders)
    .set(changes)
    .where(and(eq(eidOrders.orderRef, orderRef), eq(eidOrders.status, 'pending')))
    .returning({ orderRef: eidOrders.orderRef });
  return rows.length === 1;
}

/** Counts one collect of an order; answers how many there have been. */
export async function countCollect(db: Db, orderRef: string): Promise<number> {
  const rows = await db
    .update(eidOrders)
    .set({ collects: sql`${eidOrders.collects} + 1` })
    .where(eq(eidOrders.orderRef, orderRef))
    .returning({ collects: eidOrders.collects });
  return rows[0]?.collects ?? 0;
}
