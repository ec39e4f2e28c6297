// The built-in ledger's tables: bookings, their double entries, and the orders it was asked to book.
import { bigint, boolean, date, pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

export const bookings = pgTable('bookings', {
  bookingId: text('booking_id').primaryKey(),
  paymentId: text('payment_id'),
  bookedOn: date('booked_on', { mode: 'string' }).notNull(),
  createdAt: instant('created_at').notNull(),
  transactionDate: date('transaction_date', { mode: 'string' }).notNull(),
  debtorName: text('debtor_name'),
  creditorName: text('creditor_name'),
  remittance: text('remittance'),
});

export const ledgerEntries = pgTable('ledger_entries', {
  entryId: bigint('entry_id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  bookingId: text('booking_id').notNull(),
  ledgerAccount: text('ledger_account').notNull(),
  currency: text('currency').notNull(),
  amountMinor: bigint('amount_minor', { mode: 'number' }).notNull(),
  /**
   * What the booking says of its entries: its dates, names and remittance, copied from the booking by a
   * trigger as the entry is written (never given; migrations 0018 and 0020), so that a statement reads
   * the entries alone.
   */
  bookedOn: date('booked_on', { mode: 'string' }),
  transactionDate: date('transaction_date', { mode: 'string' }),
  debtorName: text('debtor_name'),
  creditorName: text('creditor_name'),
  remittance: text('remittance'),
});

export const ledgerOrders = pgTable('ledger_orders', {
  orderKey: text('order_key').primaryKey(),
  booked: boolean('booked').notNull(),
  reasonCode: text('reason_code'),
  reason: text('reason'),
  createdAt: instant('created_at').notNull(),
});
