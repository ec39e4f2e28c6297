// Bearer tokens: issued as random secrets, stored as hashes, resolved to what they grant.

import type { PeerIdentity } from '../../certificates/qwac.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { apiError } from '../../domain/errors.ts';
import type { TokenGrant, TokenKind } from '../../domain/grants.ts';
import { type ClientCredentialsScope, grantsRefreshToken } from '../../domain/scope.ts';
import { hashSecret, newId, newSecret } from '../../domain/secrets.ts';
import type { Db } from '../../store/database.ts';
import { insertRefreshToken, type NewRefreshToken } from '../../store/refresh-tokens-repository.ts';
import { findToken, insertToken, type NewAccessToken } from '../../store/tokens-repository.ts';
import type { ServiceContext } from '../shared/context.ts';
import { presentsBoundCertificate } from './live-access.ts';

/** Token lifetimes in seconds (spec "Limits"); authorization codes' are the mode policy's. */
export const LIFETIMES = {
  clientCredentials: 86_400,
  /** PSD2-ADMIN tokens of onboarding (spec "Limits"). */
  adminToken: 7_776_000,
  /** PSU tokens: reported always, enforced live only (the policy's enforcePsuTokenExpiry). */
  psuToken: 900,
  /**
   * Refresh tokens of account access: the longest a consent lasts (180 days and its last day); the
   * consent's own end is checked at every refresh.
   */
  refreshToken: 181 * 86_400,
} as const;

// The grant is the domain's type (domain/grants.ts); use cases keep importing it from here.
export type { TokenGrant } from '../../domain/grants.ts';

export interface TokenResponse {
  readonly access_token: string;
  readonly expires_in: number;
  readonly token_type: 'Bearer';
  /** Account access only. */
  readonly refresh_token?: string;
}

export interface NewToken {
  readonly kind: TokenKind;
  readonly clientId: string;
  readonly scope: string;
  readonly psuId: string | null;
  readonly codeHash: string | null;
  /** What the answer reports. */
  readonly expiresIn: number;
  /** Whether the lifetime is enforced (sandbox PSU tokens never expire in practice). */
  readonly enforceExpiry: boolean;
  /** Binds the token to the TLS client certificate it was issued over (RFC 8705). */
  readonly certThumbprint?: string | null;
  /** Who asked, for the audit trail's `token.issued` record. */
  readonly actor?: AuditActor | undefined;
}

/** A token's row (its secret stored as its hash) and the answer that carries the secret. */
function newToken(
  context: ServiceContext,
  token: NewToken,
): { row: NewAccessToken; response: TokenResponse } {
  const secret = newSecret();
  const now = context.clock();
  return {
    row: {
      tokenHash: hashSecret(secret),
      kind: token.kind,
      clientId: token.clientId,
      scope: token.scope,
      psuId: token.psuId,
      codeHash: token.codeHash,
      expiresAt: token.enforceExpiry ? new Date(now.getTime() + token.expiresIn * 1000) : null,
      createdAt: now,
      certThumbprint: token.certThumbprint ?? null,
    },
    response: { access_token: secret, expires_in: token.expiresIn, token_type: 'Bearer' },
  };
}

export async function issueToken(db: Db, context: ServiceContext, token: NewToken): Promise<TokenResponse> {
  const { row, response } = newToken(context, token);
  await insertToken(db, row, token.actor);
  return response;
}

export interface PsuGrant {
  readonly kind: Exclude<TokenKind, 'client_credentials'>;
  readonly clientId: string;
  readonly scope: string;
  readonly psuId: string;
  readonly codeHash: string | null;
  /** The certificate the tokens are bound to, under mutual TLS (RFC 8705). */
  readonly certThumbprint?: string | null;
  /** Who asked, for the audit trail's `token.issued` record. */
  readonly actor?: AuditActor | undefined;
}

/** A PSU's tokens to store, without their PSU (the caller's, or the code's), and their answer. */
export interface NewPsuTokens {
  readonly access: Omit<NewAccessToken, 'psuId'>;
  readonly refresh: Omit<NewRefreshToken, 'psuId'> | undefined;
  readonly response: TokenResponse;
}

/**
 * A PSU's access token (900 s; enforced live), and for account access a refresh token, bound like it
 * to the certificate it was issued over: the rows to store and the answer.
 */
export function newPsuTokens(context: ServiceContext, grant: Omit<PsuGrant, 'psuId'>): NewPsuTokens {
  const { row, response } = newToken(context, {
    kind: grant.kind,
    clientId: grant.clientId,
    scope: grant.scope,
    psuId: null,
    codeHash: grant.codeHash,
    expiresIn: LIFETIMES.psuToken,
    enforceExpiry: context.policy.enforcePsuTokenExpiry,
    certThumbprint: grant.certThumbprint ?? null,
  });
  const { psuId: _none, ...access } = row;
  if (!grantsRefreshToken(grant.scope)) return { access, refresh: undefined, response };
  const refreshToken = newSecret();
  const now = context.clock();
  return {
    access,
    refresh: {
      tokenHash: hashSecret(refreshToken),
      familyId: newId(),
      clientId: grant.clientId,
      scope: grant.scope,
      expiresAt: new Date(now.getTime() + LIFETIMES.refreshToken * 1000),
      createdAt: now,
      certThumbprint: grant.certThumbprint ?? null,
    },
    response: { ...response, refresh_token: refreshToken },
  };
}

/** Issues a PSU's tokens (newPsuTokens) in `db`. */
export async function issuePsuTokens(
  db: Db,
  context: ServiceContext,
  grant: PsuGrant,
): Promise<TokenResponse> {
  const tokens = newPsuTokens(context, grant);
  await insertToken(db, { ...tokens.access, psuId: grant.psuId }, grant.actor);
  if (tokens.refresh !== undefined) await insertRefreshToken(db, { ...tokens.refresh, psuId: grant.psuId });
  return tokens.response;
}

/**
 * What a bearer token grants. A token issued over mutual TLS is valid only over a certificate of its
 * TPP's set (presentsBoundCertificate; `peer` is the presenting connection's certificate).
 */
export async function resolveToken(
  context: ServiceContext,
  secret: string,
  peer: PeerIdentity = { kind: 'none' },
): Promise<TokenGrant> {
  const tokenHash = hashSecret(secret);
  const now = context.clock().getTime();
  const cached = context.caches.clientTokens.get(tokenHash);
  if (cached !== undefined) {
    if (cached.expiresAt <= now) throw apiError('TOKEN_EXPIRED', 'The access token has expired');
    if (cached.certThumbprint !== null)
      await checkBinding(context, cached.certThumbprint, cached.certTppId, peer);
    return { kind: cached.kind, clientId: cached.clientId, scope: cached.scope, psuId: null };
  }
  const row = await findToken(context.db, tokenHash);
  if (row === undefined) throw apiError('TOKEN_UNKNOWN', 'The access token is not known');
  if (row.revokedAt !== null) throw apiError('TOKEN_INVALID', 'The access token has been revoked');
  if (row.expiresAt !== null && row.expiresAt.getTime() <= now) {
    throw apiError('TOKEN_EXPIRED', 'The access token has expired');
  }
  if (row.certThumbprint !== null) await checkBinding(context, row.certThumbprint, row.certTppId, peer);
  if (row.kind === 'client_credentials' && row.expiresAt !== null) {
    context.caches.clientTokens.set(tokenHash, {
      kind: row.kind,
      clientId: row.clientId,
      scope: row.scope,
      expiresAt: row.expiresAt.getTime(),
      certThumbprint: row.certThumbprint,
      certTppId: row.certTppId,
    });
  }
  return {
    kind: row.kind,
    clientId: row.clientId,
    scope: row.scope,
    psuId: row.psuId,
    ...(row.consent === undefined ? {} : { consent: row.consent }),
  };
}

/** A token issued over mutual TLS (RFC 8705): presented over a certificate of its TPP's set. */
async function checkBinding(
  context: ServiceContext,
  thumbprint: string,
  tppId: string | null,
  peer: PeerIdentity,
): Promise<void> {
  if (!(await presentsBoundCertificate(context, { thumbprint, tppId }, peer))) {
    throw apiError('TOKEN_INVALID', 'The access token is bound to another certificate');
  }
}

/** The token must have been issued to the app named in X-Gateway-Client-Id. */
export function requireSameApp(grant: TokenGrant, clientId: string): void {
  if (grant.clientId !== clientId)
    throw apiError('TOKEN_INVALID', 'The access token was not issued to this app');
}

/**
 * A client-credentials token with scope PIS (spec step 1), AIS for account consents, or one of
 * several (funds confirmation: CBPII or PIS).
 */
export function requireClientToken(
  grant: TokenGrant,
  clientId: string,
  scope: ClientCredentialsScope | readonly ClientCredentialsScope[] = 'PIS',
): void {
  requireSameApp(grant, clientId);
  const scopes: readonly string[] = typeof scope === 'string' ? [scope] : scope;
  if (grant.kind !== 'client_credentials' || !scopes.includes(grant.scope)) {
    throw apiError(
      'TOKEN_INVALID',
      `This call needs a client-credentials token with scope ${scopes.join(' or ')}`,
    );
  }
}

/**
 * A PSU token for exactly this resource (scope PIS:<id>, AIS:<id>). The id is the caller's, from the
 * path, not yet looked up: the answer names the resource, never the id (issue 37).
 */
export function requirePsuToken(grant: TokenGrant, clientId: string, scope: string): void {
  requireSameApp(grant, clientId);
  if (grant.kind === 'client_credentials') {
    throw apiError('TOKEN_INVALID', 'This call needs the PSU access token of the authorization');
  }
  if (grant.scope !== scope)
    throw apiError('TOKEN_INVALID', 'The access token is not valid for the resource of this path');
}
