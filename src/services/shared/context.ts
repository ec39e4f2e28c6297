// What every use case needs: the config, the database, the clock and the bank's systems (ports).
import type { Config } from '../../config.ts';
import { dateIn } from '../../domain/dates.ts';
import type { Payment } from '../../domain/payment.ts';
import type { CoreBanking } from '../../ports/core-banking.ts';
import type { EidProvider } from '../../ports/eid-provider.ts';
import type { App } from '../../store/apps-repository.ts';
import type { BankAccount } from '../../store/customers-repository.ts';
import type { Db } from '../../store/database.ts';
import { TtlCache } from './ttl-cache.ts';

export type Clock = () => Date;

export interface ServiceContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly coreBanking: CoreBanking;
  readonly eid: EidProvider;
  readonly caches: Caches;
  /**
   * The server authenticates TPPs by mutual TLS (live mode always does: config refuses live without
   * TLS). Then every AIS/PIS call and every token request is tied to the TPP's certificate.
   */
  readonly mtls: boolean;
}

/** A cached client-credentials token: what it grants and until when (epoch ms). */
export interface CachedGrant {
  readonly kind: 'client_credentials';
  readonly clientId: string;
  readonly scope: string;
  readonly expiresAt: number;
  /** The certificate the token is bound to (RFC 8705), when issued over mutual TLS. */
  readonly certThumbprint: string | null;
}

/**
 * What every API call would otherwise read from the database. Apps change only through onboarding;
 * client-credentials tokens are never revoked, only expire (checked on every use). PSU tokens, which
 * a replayed code revokes, are never cached.
 */
export interface Caches {
  readonly apps: TtlCache<App>;
  readonly clientTokens: TtlCache<CachedGrant>;
  /** Registered TPP certificates by thumbprint: only ever added (revocation is the CRL's, in TLS). */
  readonly certificates: TtlCache<{ readonly tppId: string; readonly thumbprint: string }>;
  /** An app's product subscriptions: only ever added; a new one shows at once in this process. */
  readonly subscriptions: TtlCache<readonly string[]>;
  /**
   * Payments in a final status (ACCC, ACSC, RJCT, CANC), by id: such a row never changes again. Only a
   * sandbox reset deletes payments; it clears this process's caches, other processes forget within the TTL.
   */
  readonly finalPayments: TtlCache<Payment>;
  /**
   * The bank's accounts that payments are initiated from, by IBAN or country and BBAN: who owns them,
   * their currency and type never change (balances, blocks and limits are read at execution).
   */
  readonly debtorAccounts: TtlCache<BankAccount>;
}

export function newCaches(): Caches {
  return {
    apps: new TtlCache(30_000, 10_000),
    clientTokens: new TtlCache(60_000, 100_000),
    certificates: new TtlCache(60_000, 10_000),
    subscriptions: new TtlCache(30_000, 10_000),
    // A cached payment takes about 1.7 kB (measured): at most about 17 MB per process.
    finalPayments: new TtlCache(30_000, 10_000),
    debtorAccounts: new TtlCache(30_000, 10_000),
  };
}

/** The bank's date now. */
export function today(context: ServiceContext): string {
  return dateIn(context.clock(), context.config.timeZone);
}

/** Token lifetimes (spec "Limits"). Sandbox PSU tokens report 900 s but never expire in practice. */
export const LIFETIMES = {
  clientCredentials: 86_400,
  /** PSD2-ADMIN tokens of onboarding (spec "Limits"). */
  adminToken: 7_776_000,
  psuToken: 900,
  /** Refresh tokens of account access: the longest a consent lasts (90 days). */
  refreshToken: 90 * 86_400,
  /** Authorization codes: short in live (RFC 9700); long enough in the sandbox to copy by hand. */
  code: { sandbox: 600, live: 60 },
} as const;
