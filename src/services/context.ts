// What every use case needs: the config, the database, the clock and the bank's systems (ports).
import type { Config } from '../config.ts';
import { dateIn } from '../domain/dates.ts';
import type { CoreBanking } from '../ports/core-banking.ts';
import type { Db } from '../store/database.ts';

export type Clock = () => Date;

export interface ServiceContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly coreBanking: CoreBanking;
}

/** The bank's date now. */
export function today(context: ServiceContext): string {
  return dateIn(context.clock(), context.config.timeZone);
}

/** Token lifetimes (spec "Limits"). Sandbox PSU tokens report 900 s but never expire in practice. */
export const LIFETIMES = {
  clientCredentials: 86_400,
  psuToken: 900,
  /** Authorization codes: short in live (RFC 9700); long enough in the sandbox to copy by hand. */
  code: { sandbox: 600, live: 60 },
} as const;
