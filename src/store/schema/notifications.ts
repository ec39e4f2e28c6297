// The notification outbox (issue 41, migration 0037): one row per notification the TPP asked for,
// written by the statement that makes the change, and one row per delivery attempt.
import { integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

export const notifications = pgTable('notifications', {
  notificationId: text('notification_id').primaryKey(),
  appId: text('app_id').notNull(),
  resourceType: text('resource_type').$type<'payment' | 'basket' | 'consent'>().notNull(),
  resourceId: text('resource_id').notNull(),
  uri: text('uri').notNull(),
  body: jsonb('body').notNull(),
  createdAt: instant('created_at').notNull(),
  state: text('state').$type<'pending' | 'delivered' | 'abandoned'>().notNull(),
  attempts: integer('attempts').notNull(),
  nextAttemptAt: instant('next_attempt_at').notNull(),
  claimedUntil: instant('claimed_until'),
  deliveredAt: instant('delivered_at'),
});

export const notificationAttempts = pgTable(
  'notification_attempts',
  {
    notificationId: text('notification_id').notNull(),
    attempt: integer('attempt').notNull(),
    at: instant('at').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (table) => [primaryKey({ columns: [table.notificationId, table.attempt] })],
);
