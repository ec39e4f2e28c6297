// What every API call would otherwise read from the database, kept in memory per process; each entry
// lives at most its cache's TTL, so another process's change shows within it (docs/decisions.md "Caches").
import type { BankAccount } from '../../domain/accounts.ts';
import type { App } from '../../domain/apps.ts';
import type { PaymentStatusView } from '../../domain/payment.ts';
import { TtlCache } from './ttl-cache.ts';

/** A cached client-credentials token: what it grants and until when (epoch ms). */
export interface CachedGrant {
  readonly kind: 'client_credentials';
  readonly clientId: string;
  readonly scope: string;
  readonly expiresAt: number;
  /** The certificate the token is bound to (RFC 8705), when issued over mutual TLS. */
  readonly certThumbprint: string | null;
  /** That certificate's TPP: the token works over any certificate of the TPP's set. */
  readonly certTppId: string | null;
}

/**
 * Apps change only through onboarding; client-credentials tokens are never revoked, only expire
 * (checked on every use). PSU tokens, which a replayed code revokes, are never cached.
 */
export interface Caches {
  readonly apps: TtlCache<App>;
  readonly clientTokens: TtlCache<CachedGrant>;
  /**
   * The certificates of TPPs' sets by thumbprint. Revocation is the CRL's, in TLS; a certificate the bank
   * removes (another process: `psd2-gateway tpp remove-certificate`) leaves the caches within the TTL.
   */
  readonly certificates: TtlCache<{ readonly tppId: string; readonly thumbprint: string }>;
  /** An app's product subscriptions: only ever added; a new one shows at once in this process. */
  readonly subscriptions: TtlCache<readonly string[]>;
  /**
   * What a status read needs of payments in a final status (ACCC, ACSC, RJCT, CANC), by id: such a row
   * never changes again. Only a sandbox reset deletes payments; it clears this process's caches, other
   * processes forget within the TTL.
   */
  readonly finalPayments: TtlCache<PaymentStatusView>;
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
    // A cached status view takes about 1.3 kB with its map entry (measured): at most about 13 MB per process.
    finalPayments: new TtlCache(30_000, 10_000),
    debtorAccounts: new TtlCache(30_000, 10_000),
  };
}
