// The RTS Art. 32 statistics' tables (migration 0032): the gateway's answers per interface and minute,
// their times' histogram, and the probe's outcomes.
import {
  bigint,
  boolean,
  doublePrecision,
  integer,
  pgTable,
  primaryKey,
  smallint,
  text,
} from 'drizzle-orm/pg-core';
import { instant } from './columns.ts';

export const availabilityMinutes = pgTable(
  'availability_minutes',
  {
    interface: text('interface').notNull(),
    minute: instant('minute').notNull(),
    requests: bigint('requests', { mode: 'number' }).notNull(),
    errors5xx: bigint('errors_5xx', { mode: 'number' }).notNull(),
    errors503: bigint('errors_503', { mode: 'number' }).notNull(),
    totalMs: doublePrecision('total_ms').notNull(),
  },
  (table) => [primaryKey({ columns: [table.interface, table.minute] })],
);

export const availabilityLatency = pgTable(
  'availability_latency',
  {
    interface: text('interface').notNull(),
    minute: instant('minute').notNull(),
    bucket: smallint('bucket').notNull(),
    answers: bigint('answers', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.interface, table.minute, table.bucket] })],
);

export const probeOutcomes = pgTable(
  'probe_outcomes',
  {
    probeId: text('probe_id').notNull(),
    interface: text('interface').notNull(),
    sentAt: instant('sent_at').notNull(),
    answered: boolean('answered').notNull(),
    statusCode: integer('status_code'),
    latencyMs: doublePrecision('latency_ms').notNull(),
    intervalMs: integer('interval_ms').notNull(),
  },
  (table) => [primaryKey({ columns: [table.probeId, table.interface, table.sentAt] })],
);
