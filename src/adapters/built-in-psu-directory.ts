// The built-in PSU directory: the bank's customers in the gateway's database, with scrypt hashes of
// their passwords. It only checks a password: failed logins are counted by the gateway for known and
// unknown PSU ids alike (services/authorization/login-throttle.ts, API-NOTES "OAuth hygiene").
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { LoginResult, PsuDirectory } from '../ports/psu-directory.ts';
import {
  findPsu,
  listAccountsOfPsu,
  listCardAccountsOfPsu,
  listCardsOf,
} from '../store/customers-repository.ts';
import type { Db, StoreDb } from '../store/database.ts';
import { findCredential, upsertCredentialIfMissing } from '../store/psu-login-repository.ts';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32);
  return `scrypt$${salt.toString('hex')}$${key.toString('hex')}`;
}

async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, saltHex, keyHex] = stored.split('$');
  if (scheme !== 'scrypt' || saltHex === undefined || keyHex === undefined) return false;
  const key = await scryptAsync(password, Buffer.from(saltHex, 'hex'), 32);
  const expected = Buffer.from(keyHex, 'hex');
  return expected.length === key.length && timingSafeEqual(key, expected);
}

/** A hash no password matches: unknown PSUs cost the same time as known ones. */
const DUMMY_HASH = `scrypt$${'00'.repeat(16)}$${'00'.repeat(32)}`;

/**
 * The directory on the gateway's database; what a PSU holds is read on `readDb` (a standby's when
 * DATABASE_READ_URL names one), who a PSU is and their password on the primary.
 */
export function builtInPsuDirectory(db: StoreDb, readDb: StoreDb = db): PsuDirectory {
  return {
    async authenticate(psuId, password): Promise<LoginResult> {
      const credential = await findCredential(db, psuId);
      const matches = await verifyPassword(password, credential?.passwordHash ?? DUMMY_HASH);
      return credential !== undefined && matches ? { ok: true } : { ok: false, reason: 'invalid' };
    },
    findPsu: (psuId) => findPsu(db, psuId),
    accountsOf: (psuId) => listAccountsOfPsu(readDb, psuId),
    cardAccountsOf: (psuId) => listCardAccountsOfPsu(readDb, psuId),
    cardsOf: (accountIds) => listCardsOf(readDb, accountIds),
  };
}

/** Gives PSUs a password in the built-in directory, unless they have one. */
export async function seedCredentials(db: Db, psuIds: readonly string[], password: string): Promise<void> {
  const hash = await hashPassword(password);
  for (const psuId of psuIds) await upsertCredentialIfMissing(db, psuId, hash);
}
