// Access tokens and authorization codes, stored only as SHA-256 hashes of the secrets (refresh tokens:
// refresh-tokens-repository.ts).
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { AuditActor } from '../domain/audit.ts';
import type { Consent } from '../domain/consents.ts';
import { ACTOR_INPUT_COLUMNS, actorColumns, auditInsertSql, recordEvents } from './audit/record.ts';
import { batchedRead } from './batched-read.ts';
import { joinedStatement } from './coalescer.ts';
import { consentColumns } from './consents-repository.ts';
import { type Db, runStatement, type StoreDb } from './database.ts';
import { scaNotified } from './notifications/sca.ts';
import type { NewRefreshToken } from './refresh-tokens-repository.ts';
import { accessTokens, authCodes } from './schema.ts';

export type TokenRow = typeof accessTokens.$inferSelect;
export type NewAccessToken = typeof accessTokens.$inferInsert;
export type CodeRow = typeof authCodes.$inferSelect;

/**
 * Stores a token and its `token.issued` audit record (its scope, kind and actors; never the token, nor
 * its hash) in one statement.
 */
export async function insertToken(db: Db, token: NewAccessToken, actor?: AuditActor): Promise<void> {
  const input = JSON.stringify([{ ...actorColumns(actor), kind: token.kind }]);
  await db.execute(sql`WITH input AS (
      SELECT * FROM jsonb_to_recordset(${input}::jsonb) AS t(kind text, ${sql.raw(ACTOR_INPUT_COLUMNS)})
    ),
    stored AS (
      INSERT INTO access_tokens (token_hash, kind, client_id, scope, psu_id, code_hash, expires_at, created_at,
                                 cert_thumbprint)
      VALUES (${token.tokenHash}, ${token.kind}, ${token.clientId}, ${token.scope}, ${token.psuId ?? null},
              ${token.codeHash ?? null}, ${token.expiresAt?.toISOString() ?? null}::timestamptz,
              COALESCE(${token.createdAt?.toISOString() ?? null}::timestamptz, now()),
              ${token.certThumbprint ?? null})
      RETURNING kind, client_id, scope, psu_id, cert_thumbprint
    )
    ${sql.raw(
      auditInsertSql('stored s, input i', 'i', {
        event: `'token.issued'`,
        outcome: `'ok'`,
        resource: 's.scope',
        app: 's.client_id',
        psu: 's.psu_id',
        detail: `jsonb_build_object('kind', s.kind)`,
      }),
    )}`);
}

/**
 * A token; the TPP of the certificate it is bound to (null: unbound, or a certificate of no TPP); and, when
 * its scope is an account consent's (AIS:<consentId>), that consent (null: no such consent).
 */
export type TokenWithConsent = TokenRow & {
  readonly certTppId: string | null;
  readonly consent: Consent | null | undefined;
};

const CONSENT_PREFIX = 'consent.';

const tokensByHash = batchedRead<string, TokenRow & { certTppId: string | null } & Record<string, unknown>>(
  'find_tokens',
  `SELECT w.item::int AS item, t.token_hash AS "tokenHash", t.kind, t.client_id AS "clientId", t.scope,
          t.psu_id AS "psuId", t.code_hash AS "codeHash", t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt",
          t.created_at AS "createdAt", t.cert_thumbprint AS "certThumbprint", b.tpp_id AS "certTppId",
          ${consentColumns('c', CONSENT_PREFIX)}
     FROM unnest($1::text[]) WITH ORDINALITY AS w (hash, item)
     JOIN access_tokens t ON t.token_hash = w.hash
     LEFT JOIN tpp_certificates b ON b.thumbprint = t.cert_thumbprint
     LEFT JOIN consents c ON t.scope LIKE 'AIS:%' AND c.consent_id = substr(t.scope, 5)`,
  (hashes) => [[...hashes]],
);

/**
 * A token by its hash (every call with a bearer token: joined with concurrent lookups), with the TPP of
 * the certificate it is bound to and the account consent its scope names, read in the same statement by
 * their keys (an account read needs all three).
 */
export async function findToken(db: StoreDb, tokenHash: string): Promise<TokenWithConsent | undefined> {
  const [row] = await tokensByHash(db, tokenHash);
  if (row === undefined) return undefined;
  const token: Record<string, unknown> = {};
  const consent: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (name.startsWith(CONSENT_PREFIX)) consent[name.slice(CONSENT_PREFIX.length)] = value;
    else token[name] = value;
  }
  // Set on the row's copy, not `{ ...token, consent }`: docs/decisions.md, "Spreads followed by members".
  token.consent = !row.scope.startsWith('AIS:')
    ? undefined
    : consent.consentId == null
      ? null
      : (consent as unknown as Consent);
  return token as unknown as TokenWithConsent;
}

/** Revokes the token a replayed code issued, with a `token.revoked` audit record for each (in `db`'s transaction). */
export async function revokeTokenOfCode(
  db: Db,
  codeHash: string,
  at: Date,
  actor?: AuditActor,
): Promise<void> {
  const revoked = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(and(eq(accessTokens.codeHash, codeHash), isNull(accessTokens.revokedAt)))
    .returning({ clientId: accessTokens.clientId, scope: accessTokens.scope, psuId: accessTokens.psuId });
  await recordEvents(
    db,
    revoked.map((token) => ({
      ...actor,
      event: 'token.revoked',
      outcome: 'ok',
      resource: token.scope,
      appId: token.clientId,
      psuId: token.psuId,
      detail: { reason: 'code replayed', token: 'access' },
    })),
  );
}

export type NewCode = typeof authCodes.$inferInsert & {
  readonly createdAt: Date;
  /** Who asked: the `authorization.granted` record written by the same statement. */
  readonly actor?: AuditActor | undefined;
};

/** Concurrent authorizations' codes in one statement and one commit (see coalescer.ts). */
const codeInserts = joinedStatement('insert_codes', insertCodes);

async function insertCodes(db: StoreDb, codes: readonly NewCode[]): Promise<undefined[]> {
  await runStatement(
    db,
    'insert_codes',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("codeHash" text, "clientId" text, "redirectUri" text, scope text, "psuId" text,
              "codeChallenge" text, "expiresAt" timestamptz, "createdAt" timestamptz, ${ACTOR_INPUT_COLUMNS})
     ),
     stored AS (
       INSERT INTO auth_codes (code_hash, client_id, redirect_uri, scope, psu_id, code_challenge, expires_at, created_at)
       SELECT "codeHash", "clientId", "redirectUri", scope, "psuId", "codeChallenge", "expiresAt", "createdAt"
         FROM input
     ),
     audited AS (${auditInsertSql('input i', 'i', {
       event: `'authorization.granted'`,
       outcome: `'ok'`,
       resource: 'i.scope',
       app: 'i."clientId"',
       psu: 'i."psuId"',
     })}),
     ${scaNotified('input i', 'i.scope', 'started')}
     SELECT count(*) FROM notified`,
    [JSON.stringify(codes.map(({ actor, ...code }) => ({ ...code, ...actorColumns(actor) })))],
  );
  return codes.map(() => undefined);
}

/** Stores an authorization code (its hash); joined with concurrent authorizations' codes. */
export async function insertCode(db: StoreDb, code: NewCode): Promise<void> {
  await codeInserts(db, code);
}

/** Marks a code used; answers the code only when this call was the one that used it. */
export async function consumeCode(db: Db, codeHash: string, at: Date): Promise<CodeRow | undefined> {
  const rows = await db
    .update(authCodes)
    .set({ usedAt: at })
    .where(and(eq(authCodes.codeHash, codeHash), isNull(authCodes.usedAt)))
    .returning();
  return rows[0];
}

/** What a code must match to be exchanged: its app, redirect URI, scope and PKCE challenge (null: none). */
export interface CodeExchange {
  readonly codeHash: string;
  readonly at: Date;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly codeChallenge: string | null;
}

/**
 * Uses an unused, unexpired code that matches `exchange` and stores the tokens issued for it, in one
 * statement (atomic without a transaction); the tokens' PSU is the code's. Answers whether it did:
 * when not, nothing was written, and the caller finds out why in a transaction of its own. Concurrent
 * exchanges share a statement and a commit (see coalescer.ts); two of one code never share one, so the
 * second finds the code used, as it would alone.
 */
export function exchangeCode(
  db: StoreDb,
  exchange: CodeExchange,
  access: Omit<NewAccessToken, 'psuId'>,
  refresh: Omit<NewRefreshToken, 'psuId'> | undefined,
  actor?: AuditActor,
): Promise<boolean> {
  return codeExchanges(db, { exchange, access, refresh, actor });
}

interface Exchange {
  readonly exchange: CodeExchange;
  readonly access: Omit<NewAccessToken, 'psuId'>;
  readonly refresh: Omit<NewRefreshToken, 'psuId'> | undefined;
  /** Who asked: the `token.issued` record the statement writes. */
  readonly actor: AuditActor | undefined;
}

const codeExchanges = joinedStatement('exchange_codes', exchangeCodes, {
  key: (item) => item.exchange.codeHash,
});

/**
 * The exchanges whose codes were used by this statement. The codes are named as an array too, so that
 * the planner reads them by key (a JSON input is planned for 100 rows; see the finish of executions).
 */
async function exchangeCodes(db: StoreDb, items: readonly Exchange[]): Promise<boolean[]> {
  const rows = items.map(({ exchange, access, refresh, actor }) => ({
    ...actorColumns(actor),
    codeHash: exchange.codeHash,
    at: exchange.at.toISOString(),
    clientId: exchange.clientId,
    redirectUri: exchange.redirectUri,
    scope: exchange.scope,
    codeChallenge: exchange.codeChallenge,
    accessHash: access.tokenHash,
    kind: access.kind,
    accessExpiresAt: access.expiresAt?.toISOString() ?? null,
    certThumbprint: access.certThumbprint ?? null,
    refreshHash: refresh?.tokenHash ?? null,
    familyId: refresh?.familyId ?? null,
    refreshExpiresAt: refresh?.expiresAt.toISOString() ?? null,
  }));
  const issued = await runStatement<{ codeHash: string }>(
    db,
    'exchange_codes',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("codeHash" text, at timestamptz, "clientId" text, "redirectUri" text, scope text,
              "codeChallenge" text, "accessHash" text, kind text, "accessExpiresAt" timestamptz,
              "certThumbprint" text, "refreshHash" text, "familyId" text, "refreshExpiresAt" timestamptz,
              ${ACTOR_INPUT_COLUMNS})
     ),
     used AS (
       UPDATE auth_codes c SET used_at = i.at
         FROM input i
        WHERE c.code_hash = ANY (ARRAY(SELECT "codeHash" FROM input)) AND c.code_hash = i."codeHash"
          AND c.used_at IS NULL AND c.expires_at > i.at AND c.client_id = i."clientId"
          AND c.redirect_uri = i."redirectUri" AND c.scope = i.scope
          AND c.code_challenge IS NOT DISTINCT FROM i."codeChallenge"
        RETURNING c.code_hash, c.psu_id
     ),
     access AS (
       INSERT INTO access_tokens (token_hash, kind, client_id, scope, psu_id, code_hash, expires_at, created_at,
                                  cert_thumbprint)
       SELECT i."accessHash", i.kind, i."clientId", i.scope, u.psu_id, i."codeHash", i."accessExpiresAt", i.at,
              i."certThumbprint"
         FROM used u JOIN input i ON i."codeHash" = u.code_hash
       RETURNING code_hash, client_id, scope, psu_id, kind
     ),
     audited AS (${auditInsertSql('access a JOIN input i ON i."codeHash" = a.code_hash', 'i', {
       event: `'token.issued'`,
       outcome: `'ok'`,
       resource: 'a.scope',
       app: 'a.client_id',
       psu: 'a.psu_id',
       detail: `jsonb_build_object('kind', a.kind)`,
     })}),
     refresh AS (
       INSERT INTO refresh_tokens (token_hash, family_id, client_id, scope, psu_id, expires_at, created_at,
                                   cert_thumbprint)
       SELECT i."refreshHash", i."familyId", i."clientId", i.scope, u.psu_id, i."refreshExpiresAt", i.at,
              i."certThumbprint"
         FROM used u JOIN input i ON i."codeHash" = u.code_hash
        WHERE i."refreshHash" IS NOT NULL
       RETURNING 1
     ),
     ${scaNotified('access a JOIN input i ON i."codeHash" = a.code_hash', 'i.scope', 'finalised')}
     SELECT a.code_hash AS "codeHash" FROM access a, (SELECT count(*) FROM notified) n`,
    [JSON.stringify(rows)],
  );
  const codes = new Set(issued.map((row) => row.codeHash));
  return items.map(({ exchange }) => codes.has(exchange.codeHash));
}

export async function findCode(db: Db, codeHash: string): Promise<CodeRow | undefined> {
  const rows = await db.select().from(authCodes).where(eq(authCodes.codeHash, codeHash)).limit(1);
  return rows[0];
}
