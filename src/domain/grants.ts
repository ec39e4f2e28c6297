// What a presented bearer token grants, in the domain's words: the HTTP hooks carry it on the request
// and the use cases check it, so neither needs the kernel's token store to name it.
import type { Consent } from './consents.ts';

export type TokenKind = 'client_credentials' | 'authorization_code' | 'decoupled' | 'refresh_token';

/** What a presented bearer token grants. */
export interface TokenGrant {
  readonly kind: TokenKind;
  readonly clientId: string;
  readonly scope: string;
  /** The PSU who authorized; null for client-credentials tokens. */
  readonly psuId: string | null;
  /**
   * For a token of an account consent (scope AIS:<consentId>): that consent as read with the token, in
   * the same statement (null: there is no such consent). Undefined for other tokens.
   */
  readonly consent?: Consent | null;
}
