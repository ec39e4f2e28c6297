// Column kinds the schema's tables share.
import { timestamp } from 'drizzle-orm/pg-core';

/** A timestamptz read as a Date. */
export const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
