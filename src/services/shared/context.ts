// What every use case receives: the config and the policy of its mode, the database, the clock, the
// bank's systems (ports) and what the built-in ones bring beside their ports, the caches and the
// registry of what a PSU can authorize. Built once, in app.ts; tests build their own with fakes of the ports.
import type { Config } from '../../config.ts';
import type { Clock, Sleep } from '../../domain/clock.ts';
import { dateIn } from '../../domain/dates.ts';
import type { CoreBanking } from '../../ports/core-banking.ts';
import type { EidProvider } from '../../ports/eid-provider.ts';
import type { ExchangeRates } from '../../ports/exchange-rates.ts';
import type { PsuDirectory } from '../../ports/psu-directory.ts';
import type { PsuIdentityProvider } from '../../ports/psu-identity-provider.ts';
import type { StoreDb } from '../../store/database.ts';
import type { AuthorizableRegistry } from './authorizables.ts';
import type { Caches } from './caches.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { ModePolicy } from './policy.ts';
import type { RecordedBookings } from './recorded-bookings.ts';
import type { SimulatedEidApp } from './simulated-eid-app.ts';

export type { Clock, Sleep } from '../../domain/clock.ts';

export interface ServiceContext {
  readonly config: Config;
  /** Everything that differs between the sandbox and live. */
  readonly policy: ModePolicy;
  readonly db: StoreDb;
  /**
   * Reads that may be a little behind (DB_READ_MAX_LAG_MS) and are served by a standby when
   * DATABASE_READ_URL names one: account information, funds checks, final payments' statuses. The
   * same handle as `db` without standbys. What must see a write just made, and every write, uses `db`.
   */
  readonly readDb: StoreDb;
  readonly clock: Clock;
  /** Waits (the login throttle's delay): a timer, or the test's own. */
  readonly sleep: Sleep;
  readonly coreBanking: CoreBanking;
  /**
   * Booking an execution and recording it in one transaction: only the built-in ledger, which keeps its
   * books in the gateway's database, can; unset with a bank's own core banking system.
   */
  readonly recordedBookings?: RecordedBookings;
  readonly psuDirectory: PsuDirectory;
  /** The bank's OpenID Connect provider, where PSUs log in (PSU_OIDC_*); unset: our login page. */
  readonly psuIdentityProvider: PsuIdentityProvider | undefined;
  readonly eid: EidProvider;
  /** The built-in e-ID simulator's pretend app for the PSU (/psu/eid); unset with a real e-ID provider. */
  readonly simulatedEid?: SimulatedEidApp;
  readonly rates: ExchangeRates;
  readonly caches: Caches;
  /** Payments, baskets and consents register here what a PSU can authorize; authorization asks it. */
  readonly authorizables: AuthorizableRegistry;
  /**
   * The server authenticates TPPs by mutual TLS (live mode always does: config refuses live without
   * TLS). Then every AIS/PIS call and every token request is tied to the TPP's certificate.
   */
  readonly mtls: boolean;
  /** What the use cases count, once committed (services/shared/metrics.ts; Prometheus in http/metrics.ts). */
  readonly metrics: ServiceMetrics;
}

/** The bank's date now. */
export function today(context: Pick<ServiceContext, 'clock' | 'config'>): string {
  return dateIn(context.clock(), context.config.timeZone);
}
