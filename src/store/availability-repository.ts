// The RTS Art. 32 statistics' rows: minutes of answers added into (never replaced, so that every process
// and instance adds its own), probe outcomes appended, and the sums the report reads.
import { and, asc, gte, lt, sql } from 'drizzle-orm';
import type { MinuteCounts } from '../domain/availability.ts';
import type { Db } from './database.ts';
import { availabilityLatency, availabilityMinutes, probeOutcomes } from './schema.ts';

/**
 * Adds the minutes' counts to the rows already there (one statement per table), in one transaction: the
 * recorder writes a failed flush again, so half of one written (the minutes but not the histogram)
 * would count its answers twice.
 */
export async function addMinutes(db: Db, minutes: readonly MinuteCounts[]): Promise<void> {
  if (minutes.length === 0) return;
  await db.transaction(async (trx) => {
    await trx
      .insert(availabilityMinutes)
      .values(minutes.map(({ buckets: _, ...row }) => row))
      .onConflictDoUpdate({
        target: [availabilityMinutes.interface, availabilityMinutes.minute],
        set: {
          requests: sql`${availabilityMinutes.requests} + excluded.requests`,
          errors5xx: sql`${availabilityMinutes.errors5xx} + excluded.errors_5xx`,
          errors503: sql`${availabilityMinutes.errors503} + excluded.errors_503`,
          totalMs: sql`${availabilityMinutes.totalMs} + excluded.total_ms`,
        },
      });
    const buckets = minutes.flatMap((m) =>
      [...m.buckets].map(([bucket, answers]) => ({
        interface: m.interface,
        minute: m.minute,
        bucket,
        answers,
      })),
    );
    if (buckets.length === 0) return;
    await trx
      .insert(availabilityLatency)
      .values(buckets)
      .onConflictDoUpdate({
        target: [availabilityLatency.interface, availabilityLatency.minute, availabilityLatency.bucket],
        set: { answers: sql`${availabilityLatency.answers} + excluded.answers` },
      });
  });
}

export interface ProbeRecord {
  readonly probeId: string;
  readonly interface: string;
  readonly sentAt: Date;
  readonly answered: boolean;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly intervalMs: number;
}

/** Appends the probe's outcomes; one written before (a retried flush) is not written twice. */
export async function addProbeOutcomes(db: Db, records: readonly ProbeRecord[]): Promise<void> {
  if (records.length === 0) return;
  await db
    .insert(probeOutcomes)
    .values([...records])
    .onConflictDoNothing();
}

/** The minutes' rows of [from, to), by interface and minute. */
export function minutesBetween(db: Db, from: Date, to: Date) {
  return db
    .select()
    .from(availabilityMinutes)
    .where(and(gte(availabilityMinutes.minute, from), lt(availabilityMinutes.minute, to)));
}

/** The histogram rows of [from, to). */
export function latencyBetween(db: Db, from: Date, to: Date) {
  return db
    .select()
    .from(availabilityLatency)
    .where(and(gte(availabilityLatency.minute, from), lt(availabilityLatency.minute, to)));
}

/** The probe's outcomes sent in [from, to), in time order. */
export function probeOutcomesBetween(db: Db, from: Date, to: Date) {
  return db
    .select({
      interface: probeOutcomes.interface,
      sentAt: probeOutcomes.sentAt,
      answered: probeOutcomes.answered,
      intervalMs: probeOutcomes.intervalMs,
    })
    .from(probeOutcomes)
    .where(and(gte(probeOutcomes.sentAt, from), lt(probeOutcomes.sentAt, to)))
    .orderBy(asc(probeOutcomes.sentAt));
}
