// The ledger's history: bookings that are no payment's (the sandbox's), booked once.
import { isNull } from 'drizzle-orm';
import type { Db } from '../database.ts';
import { bookings, ledgerEntries } from '../schema.ts';

/** One line of a booking: an amount on a ledger account (a customer's, or clearing:/fx:<currency>). */
export interface Entry {
  readonly ledgerAccount: string;
  readonly currency: string;
  readonly amountMinor: number;
}

/** Whether the ledger holds bookings that are no payment's (the sandbox's history). */
export async function hasHistory(db: Db): Promise<boolean> {
  const rows = await db
    .select({ bookingId: bookings.bookingId })
    .from(bookings)
    .where(isNull(bookings.paymentId))
    .limit(1);
  return rows.length > 0;
}

/** Books history (bookings without a payment) once: a booking already there keeps its entries. */
export async function insertHistory(
  trx: Db,
  history: readonly (Omit<typeof bookings.$inferInsert, 'createdAt'> & {
    bookingId: string;
    entries: readonly Entry[];
  })[],
  createdAt: Date,
): Promise<void> {
  for (let start = 0; start < history.length; start += 500) {
    const chunk = history.slice(start, start + 500);
    const inserted = await trx
      .insert(bookings)
      .values(chunk.map(({ entries: _entries, ...booking }) => ({ ...booking, paymentId: null, createdAt })))
      .onConflictDoNothing()
      .returning({ bookingId: bookings.bookingId });
    const fresh = new Set(inserted.map((row) => row.bookingId));
    const entries = chunk
      .filter((booking) => fresh.has(booking.bookingId))
      .flatMap((booking) => booking.entries.map((entry) => ({ ...entry, bookingId: booking.bookingId })));
    if (entries.length > 0) await trx.insert(ledgerEntries).values(entries);
  }
}
