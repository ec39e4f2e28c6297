// What a PSU can authorize: each feature registers its kinds of resources (payments and signing
// baskets; short-term and account consents), and the authorization flows find the resource a scope
// names here, without knowing any of the features.
import type { ClientScope, ResourceScope } from '../../domain/scope.ts';
import type { Db } from '../../store/database.ts';

/** A payment as the PSU's consent page shows it. */
export interface PaymentSummary {
  readonly amount: string;
  readonly currency: string;
  readonly creditorName: string | null;
  readonly creditorAccount: string;
  readonly debtorAccount: string;
  readonly executionDate: string | null;
}

/** What the consent page shows: the payments, or the access a consent grants. */
export interface Description {
  readonly payments: readonly PaymentSummary[];
  readonly access?: string;
}

/** A payment, signing basket or consent that a scope (PIS:<id>, AIS:<id>) names. */
export interface Authorizable {
  readonly service: ClientScope;
  readonly id: string;
  readonly clientId: string;
  /** Where it is authorized: decoupled (mobile e-ID) is Swedish only. */
  readonly country: string;
  /** The PSU who must authorize, when the resource names one (the debtor accounts' holder, the PSU-ID given). */
  readonly psuId: string | null;
  /** Who approves in the sandbox, where nobody logs in, when the resource names no PSU. */
  readonly sandboxPsu: string | null;
  /** Why it cannot be authorized now, or undefined when it can. */
  readonly refusal: string | undefined;
  /** What the e-ID app shows the PSU. */
  readonly visibleText: string;
  /** Why this PSU, logged in, may not approve it; undefined when the PSU may. */
  psuRefusal(psuId: string): Promise<string | undefined>;
  describe(): Promise<Description>;
  /** What the PSU's approval does beyond the code or token, in the caller's transaction. */
  approve(trx: Db, psuId: string): Promise<void>;
  /** Whether tokens of this authorization still grant access (the refresh grant asks). */
  stillGrants(now: Date): boolean;
}

/** One kind of authorizable resource, as a feature registers it. */
export interface AuthorizableKind {
  readonly service: ClientScope;
  find(id: string): Promise<Authorizable | undefined>;
}

export class AuthorizableRegistry {
  private readonly kinds: AuthorizableKind[] = [];

  register(...kinds: readonly AuthorizableKind[]): void {
    this.kinds.push(...kinds);
  }

  /** The resource a scope names: the first registered kind of its service that has the id. */
  async find(scope: ResourceScope): Promise<Authorizable | undefined> {
    for (const kind of this.kinds) {
      if (kind.service !== scope.service) continue;
      const found = await kind.find(scope.resourceId);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}
