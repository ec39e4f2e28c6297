// The Drizzle schema: the typed mirror of migrations/*.sql (the SQL files are the source of truth).
import { sql } from 'drizzle-orm';
import { bigint, boolean, date, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { ConsentKind, ConsentStatus } from '../domain/consents.ts';
import { instant } from './schema/columns.ts';

// The tables of onboarding (TPPs, their certificates, subscriptions) and of the built-in ledger, in
// files of their own; this module is still the one schema Drizzle is given (import * as schema).
export * from './schema/availability.ts';
export * from './schema/ledger.ts';
export * from './schema/notification-signing.ts';
export * from './schema/notifications.ts';
export * from './schema/onboarding.ts';
export * from './schema/psu-sessions.ts';
export * from './schema/sandbox-clocks.ts';

export const apps = pgTable('apps', {
  clientId: text('client_id').primaryKey(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  redirectUri: text('redirect_uri').notNull(),
  seeded: boolean('seeded').notNull().default(false),
  createdAt: instant('created_at').notNull().default(sql`now()`),
  tppId: text('tpp_id'),
  /** The hosts the app's notifications may go to in live mode (0037). */
  notificationHosts: text('notification_hosts').array().notNull().default(sql`'{}'`),
});

/** A PSU: one of the built-in directory's, or (reference) only its id, for a PSU the bank's systems vouched for. */
export const psus = pgTable('psus', {
  psuId: text('psu_id').primaryKey(),
  name: text('name'),
  customerType: text('customer_type').$type<'private' | 'corporate'>(),
  corporateId: text('corporate_id'),
  reference: boolean('reference').notNull().default(false),
});

/**
 * An account: one of the built-in ledger's, or (reference) only its id and its PSU's, for an account the
 * bank's core banking system confirmed as that PSU's (migration 0026). Only reference rows lack the rest.
 */
export const accounts = pgTable('accounts', {
  accountId: text('account_id').primaryKey(),
  psuId: text('psu_id').notNull(),
  country: text('country'),
  currency: text('currency'),
  iban: text('iban'),
  bban: text('bban'),
  clearingNumber: text('clearing_number'),
  bic: text('bic'),
  accountType: text('account_type'),
  name: text('name'),
  ownerName: text('owner_name'),
  position: integer('position'),
  reference: boolean('reference').notNull().default(false),
  balanceMinor: bigint('balance_minor', { mode: 'number' }).notNull().default(0),
  /** The opening balance plus every entry, kept by the database's triggers (migration 0017). */
  bookedMinor: bigint('booked_minor', { mode: 'number' }).notNull().default(0),
  blocked: boolean('blocked').notNull().default(false),
  dailyLimitMinor: bigint('daily_limit_minor', { mode: 'number' }),
  enforceRules: boolean('enforce_rules').notNull().default(false),
});

export const cards = pgTable('cards', {
  cardId: text('card_id').primaryKey(),
  accountId: text('account_id'),
  maskedPan: text('masked_pan').notNull(),
  name: text('name').notNull(),
  cardAccountId: text('card_account_id'),
});

export const payments = pgTable('payments', {
  paymentId: text('payment_id').primaryKey(),
  clientId: text('client_id').notNull(),
  product: text('product').notNull(),
  country: text('country').notNull(),
  customerType: text('customer_type').notNull(),
  psuId: text('psu_id').notNull(),
  corporateId: text('corporate_id'),
  debtorAccountId: text('debtor_account_id').notNull(),
  amountMinor: bigint('amount_minor', { mode: 'number' }).notNull(),
  currency: text('currency').notNull(),
  creditorName: text('creditor_name'),
  creditorAccount: text('creditor_account').notNull(),
  requestedExecutionDate: date('requested_execution_date', { mode: 'string' }),
  status: text('status').notNull(),
  instruction: jsonb('instruction').notNull(),
  createdAt: instant('created_at').notNull().default(sql`now()`),
  executedAt: instant('executed_at'),
  basketId: text('basket_id'),
  tppPaymentReference: text('tpp_payment_reference'),
  debtorCurrency: text('debtor_currency').notNull(),
  reasonCode: text('reason_code'),
  reason: text('reason'),
  bookingKey: text('booking_key'),
  bookingStartedAt: instant('booking_started_at'),
  /** Who moves the status, written with the move and cleared by its trigger: never stored (0035). */
  auditActor: jsonb('audit_actor').$type<Record<string, string>>(),
  /** Accepted and waiting for its settlement (a sandbox scenario): the bank day it settles on (0039). */
  settlesOn: date('settles_on', { mode: 'string' }),
  /** The TPP's subscription to status notifications (0037): where, and which content (e.g. "PROCESS,LAST"). */
  notificationUri: text('notification_uri'),
  notificationContent: text('notification_content'),
});

export const signingBaskets = pgTable('signing_baskets', {
  basketId: text('basket_id').primaryKey(),
  clientId: text('client_id').notNull(),
  psuId: text('psu_id').notNull(),
  createdAt: instant('created_at').notNull().default(sql`now()`),
  notificationUri: text('notification_uri'),
  notificationContent: text('notification_content'),
});

export const authCodes = pgTable('auth_codes', {
  codeHash: text('code_hash').primaryKey(),
  clientId: text('client_id').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  scope: text('scope').notNull(),
  psuId: text('psu_id').notNull(),
  codeChallenge: text('code_challenge'),
  expiresAt: instant('expires_at').notNull(),
  usedAt: instant('used_at'),
  createdAt: instant('created_at').notNull().default(sql`now()`),
});

export const accessTokens = pgTable('access_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  kind: text('kind')
    .$type<'client_credentials' | 'authorization_code' | 'decoupled' | 'refresh_token'>()
    .notNull(),
  clientId: text('client_id').notNull(),
  scope: text('scope').notNull(),
  psuId: text('psu_id'),
  codeHash: text('code_hash'),
  expiresAt: instant('expires_at'),
  revokedAt: instant('revoked_at'),
  createdAt: instant('created_at').notNull().default(sql`now()`),
  certThumbprint: text('cert_thumbprint'),
});

export const idempotencyKeys = pgTable(
  'idempotency_claims',
  {
    clientId: text('client_id').notNull(),
    operation: text('operation').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    claim: text('claim'),
    leaseUntil: instant('lease_until'),
    statusCode: integer('status_code'),
    body: jsonb('body'),
    createdAt: instant('created_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.clientId, table.operation, table.idempotencyKey] })],
);

export const eidOrders = pgTable('eid_orders', {
  orderRef: text('order_ref').primaryKey(),
  personalNumber: text('personal_number').notNull(),
  endUserIp: text('end_user_ip').notNull(),
  visibleText: text('visible_text').notNull(),
  autoStartToken: text('auto_start_token').notNull(),
  qrStartToken: text('qr_start_token').notNull(),
  qrStartSecret: text('qr_start_secret').notNull(),
  status: text('status').$type<'pending' | 'failed' | 'complete'>().notNull(),
  hintCode: text('hint_code').notNull(),
  createdAt: instant('created_at').notNull(),
  startedAt: instant('started_at'),
  endedAt: instant('ended_at'),
  collects: integer('collects').notNull().default(0),
  /** The simulator's app: the hash of the ticket of the PSU who identified for the order. */
  signTicketHash: text('sign_ticket_hash'),
});

export const decoupledSessions = pgTable('decoupled_sessions', {
  sessionHash: text('session_hash').primaryKey(),
  clientId: text('client_id').notNull(),
  scope: text('scope').notNull(),
  psuId: text('psu_id').notNull(),
  psuClientIp: text('psu_client_ip').notNull(),
  sameDevice: boolean('same_device').notNull(),
  orderRef: text('order_ref').notNull(),
  sleepMs: integer('sleep_ms').notNull(),
  state: text('state').$type<'active' | 'complete' | 'cancelled' | 'failed'>().notNull(),
  polls: integer('polls').notNull().default(0),
  earlyPolls: integer('early_polls').notNull().default(0),
  lastPollAt: instant('last_poll_at'),
  createdAt: instant('created_at').notNull(),
  endedAt: instant('ended_at'),
  certThumbprint: text('cert_thumbprint'),
});

export const psuCredentials = pgTable('psu_credentials', {
  psuId: text('psu_id').primaryKey(),
  passwordHash: text('password_hash').notNull(),
});

/** Failed logins per PSU id (its SHA-256) and client address; address '' counts every address. */
export const loginFailures = pgTable(
  'login_failures',
  {
    psuKey: text('psu_key').notNull(),
    address: text('address').notNull(),
    failures: integer('failures').notNull(),
    lockedUntil: instant('locked_until'),
    lastFailureAt: instant('last_failure_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.psuKey, table.address] })],
);

export const authRequests = pgTable('auth_requests', {
  requestHash: text('request_hash').primaryKey(),
  csrfHash: text('csrf_hash').notNull(),
  clientId: text('client_id').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  scope: text('scope').notNull(),
  state: text('state').notNull(),
  codeChallenge: text('code_challenge'),
  resourceId: text('resource_id').notNull(),
  psuId: text('psu_id'),
  shownPayment: text('shown_payment'),
  status: text('status').$type<'login' | 'consent' | 'done'>().notNull(),
  createdAt: instant('created_at').notNull(),
  lastActivity: instant('last_activity').notNull(),
});

/** The PSU's login at the bank's OpenID Connect provider, for one authorization request. */
export const providerLogins = pgTable('provider_logins', {
  startHash: text('start_hash').primaryKey(),
  requestHash: text('request_hash').notNull(),
  status: text('status').$type<'created' | 'sent' | 'returned'>().notNull(),
  stateHash: text('state_hash'),
  browserHash: text('browser_hash'),
  returnUrl: text('return_url'),
  checks: text('checks'),
  createdAt: instant('created_at').notNull(),
});

export const refreshTokens = pgTable('refresh_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  familyId: text('family_id').notNull(),
  clientId: text('client_id').notNull(),
  scope: text('scope').notNull(),
  psuId: text('psu_id').notNull(),
  expiresAt: instant('expires_at').notNull(),
  usedAt: instant('used_at'),
  revokedAt: instant('revoked_at'),
  createdAt: instant('created_at').notNull(),
  certThumbprint: text('cert_thumbprint'),
});

export const consents = pgTable('consents', {
  consentId: text('consent_id').primaryKey(),
  clientId: text('client_id').notNull(),
  kind: text('kind').$type<ConsentKind>().notNull(),
  access: text('access').$type<'ALL_ACCOUNTS'>().notNull(),
  status: text('status').$type<ConsentStatus>().notNull(),
  psuId: text('psu_id'),
  validUntil: instant('valid_until'),
  readsLeft: integer('reads_left'),
  createdAt: instant('created_at').notNull(),
  frequencyPerDay: integer('frequency_per_day'),
  requestedPsuId: text('requested_psu_id'),
  terminatedAt: instant('terminated_at'),
  notificationUri: text('notification_uri'),
  notificationContent: text('notification_content'),
});

export const consentUsage = pgTable(
  'consent_usage',
  {
    consentId: text('consent_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    resource: text('resource').notNull(),
    reads: integer('reads').notNull(),
  },
  (table) => [primaryKey({ columns: [table.consentId, table.day, table.resource] })],
);

export const cardAccounts = pgTable('card_accounts', {
  cardAccountId: text('card_account_id').primaryKey(),
  psuId: text('psu_id').notNull(),
  currency: text('currency').notNull(),
  product: text('product').notNull(),
  ownerName: text('owner_name').notNull(),
  creditLimitMinor: bigint('credit_limit_minor', { mode: 'number' }).notNull(),
  balanceMinor: bigint('balance_minor', { mode: 'number' }).notNull().default(0),
  /** The opening balance plus every entry, kept by the database's triggers (migration 0017). */
  bookedMinor: bigint('booked_minor', { mode: 'number' }).notNull().default(0),
  position: integer('position').notNull(),
});
