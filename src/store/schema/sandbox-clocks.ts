// Each sandbox app's clock: its offset from real time (migration 0039); no row is offset zero.
import { sql } from 'drizzle-orm';
import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

export const sandboxClocks = pgTable('sandbox_clocks', {
  appId: text('app_id').primaryKey(),
  offsetMs: bigint('offset_ms', { mode: 'number' }).notNull(),
  updatedAt: instant('updated_at').notNull().default(sql`now()`),
});
