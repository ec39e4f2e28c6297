// The PSU's permission dashboard: sessions after the PSU's login (the hash of the cookie's secret), and
// logins at the bank's OpenID Connect provider while the browser is there.
import { pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

export const psuSessions = pgTable('psu_sessions', {
  sessionHash: text('session_hash').primaryKey(),
  psuId: text('psu_id').notNull(),
  createdAt: instant('created_at').notNull(),
  lastActivity: instant('last_activity').notNull(),
});

export const psuDashboardLogins = pgTable('psu_dashboard_logins', {
  stateHash: text('state_hash').primaryKey(),
  browserHash: text('browser_hash').notNull(),
  returnUrl: text('return_url').notNull(),
  checks: text('checks').notNull(),
  createdAt: instant('created_at').notNull(),
});
