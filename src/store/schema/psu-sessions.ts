// The PSU's permission dashboard: sessions after the PSU's login (the hash of the cookie's secret).
import { pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

export const psuSessions = pgTable('psu_sessions', {
  sessionHash: text('session_hash').primaryKey(),
  psuId: text('psu_id').notNull(),
  createdAt: instant('created_at').notNull(),
  lastActivity: instant('last_activity').notNull(),
});
