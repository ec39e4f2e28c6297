// The sandbox's generated notification signing key (migration 0038): one row, a PKCS#8 PEM.
import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

export const notificationSigningKey = pgTable('notification_signing_key', {
  id: integer('id').primaryKey(),
  privateKey: text('private_key').notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
});
