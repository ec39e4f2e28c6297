// Test harness: a gateway on PGlite (always) or PostgreSQL (when TEST_DATABASE_URL is set), each test
// file with its own database (a fresh PGlite, copied from a migrated template, or its own PostgreSQL
// schema), listening on port 0.

import { randomBytes } from 'node:crypto';
import { TppClient } from '@psd2-gateway/client';
import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import pino, { type Logger } from 'pino';
import { type BankSystems, builtInSystems } from '../../src/adapters/built-in-systems.ts';
import { buildApp, serviceContext as contextOf } from '../../src/app.ts';
import { type Config, configWith, DEFAULT_TIME_ZONE } from '../../src/config.ts';
import type { App } from '../../src/domain/apps.ts';
import { dateIn } from '../../src/domain/dates.ts';
import type { CoreBanking } from '../../src/ports/core-banking.ts';
import type { PsuIdentityProvider } from '../../src/ports/psu-identity-provider.ts';
import { scenarioOf } from '../../src/sandbox/scenarios.ts';
import { ensureSandboxApp, seedTestCustomers } from '../../src/sandbox/seed.ts';
import type { Clock, ServiceContext, Sleep } from '../../src/services/shared/context.ts';
import { policyFor } from '../../src/services/shared/policy.ts';
import type { RecordedBookings } from '../../src/services/shared/recorded-bookings.ts';
import { insertApp } from '../../src/store/apps-repository.ts';
import { openStore } from '../../src/store/database/open.ts';
import type { Store } from '../../src/store/database.ts';
import { migratedTemplate } from './pglite-template.ts';

export type Backend = 'pglite' | 'postgres';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/** The backends storage tests run on; says so when PostgreSQL is skipped. */
export function backends(): Backend[] {
  if (TEST_DATABASE_URL === undefined) {
    console.log('# PostgreSQL suites skipped: TEST_DATABASE_URL is not set');
    return ['pglite'];
  }
  return ['pglite', 'postgres'];
}

export interface TestStore extends Store {
  readonly schemaName: string | undefined;
}

export async function openTestStore(backend: Backend): Promise<TestStore> {
  if (backend === 'pglite')
    return { ...(await openStore({ snapshot: await migratedTemplate() })), schemaName: undefined };
  const schemaName = `t_${randomBytes(6).toString('hex')}`;
  const store = await openStore({ databaseUrl: TEST_DATABASE_URL, schemaName });
  return {
    ...store,
    schemaName,
    close: async () => {
      await store.close();
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schemaName} CASCADE`);
      await admin.end();
    },
  };
}

export interface Gateway {
  readonly app: FastifyInstance;
  readonly store: TestStore;
  readonly config: Config;
  readonly sandboxApp: App;
  readonly url: string;
  /** Every route the app registered, as "METHOD /path/:param" (HEAD ones included). */
  readonly routes: readonly string[];
  readonly client: TppClient;
  /** Registers another app (as onboarding would) and answers a client for it. */
  addApp(name?: string, redirectUri?: string): Promise<TppClient>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  readonly backend?: Backend;
  readonly store?: TestStore;
  readonly clock?: Clock;
  /** Waits (the login throttle's delay); by default a timer. */
  readonly sleep?: Sleep;
  /** The core banking system: a fake through the port, given the built-in one to wrap or replace. */
  readonly coreBanking?: (builtIn: CoreBanking) => CoreBanking;
  /**
   * Beside a given core banking system, the one-transaction booking of executions, given the built-in
   * ledger's to wrap; without it a given core banking system books in three steps.
   */
  readonly recordedBookings?: (builtIn: RecordedBookings) => RecordedBookings;
  /** Other bank systems to use instead of the built-in ones (an e-ID provider, …). */
  readonly systems?: Partial<BankSystems>;
  /** The bank's OpenID Connect provider for PSU logins (test/stand-ins/oidc-provider.ts). */
  readonly psuIdentityProvider?: PsuIdentityProvider;
  readonly config?: Partial<Config>;
  /** Serve HTTPS asking for client certificates (live onboarding tests). */
  readonly tls?: { key: string; cert: string; ca?: string; crl?: string };
  /** A logger whose lines the test reads (default: silent). */
  readonly logger?: Logger;
}

export const REDIRECT_URI = 'https://tpp.example/callback';

export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const store = options.store ?? (await openTestStore(options.backend ?? 'pglite'));
  const config = configWith({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    sandboxRedirectUri: REDIRECT_URI,
    sandboxClientId: randomBytes(16).toString('hex'),
    // Tests drive the scheduler themselves, with their own clock.
    schedulerIntervalMs: 0,
    ...options.config,
  });
  await seedTestCustomers(store.db, dateIn((options.clock ?? (() => new Date()))(), config.timeZone));
  const sandboxApp = await ensureSandboxApp(store.db, config);
  const routes: string[] = [];
  const app = await buildApp({
    config,
    store,
    logger: options.logger ?? pino({ level: 'silent' }),
    // Every answer a test receives must be one its route documents (src/http/answer-check.ts).
    checkAnswers: true,
    onRoute: (route) => {
      for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`);
    },
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    systems: {
      ...options.systems,
      ...(options.psuIdentityProvider === undefined
        ? {}
        : { psuIdentityProvider: options.psuIdentityProvider }),
      ...(options.coreBanking === undefined
        ? {}
        : { coreBanking: options.coreBanking(builtInLedger(store, config, options.clock)) }),
      ...(options.recordedBookings === undefined
        ? {}
        : {
            recordedBookings: options.recordedBookings(
              builtInOf(store, config, options.clock).recordedBookings,
            ),
          }),
    },
    ...(options.tls === undefined ? {} : { tls: options.tls }),
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  // Certificates name localhost; the listening address says 127.0.0.1.
  const url =
    (options.tls === undefined ? address : address.replace('127.0.0.1', 'localhost')) + config.basePath;
  return {
    app,
    store,
    config,
    sandboxApp,
    url,
    routes,
    client: new TppClient(url, sandboxApp.clientId, sandboxApp.redirectUri),
    async addApp(name = 'Another app', redirectUri?: string) {
      const clientId = randomBytes(16).toString('hex');
      redirectUri ??= `https://${clientId.slice(0, 8)}.tpp.example/cb`;
      await insertApp(store.db, { clientId, name, description: '', redirectUri, seeded: false });
      return new TppClient(url, clientId, redirectUri);
    },
    async close() {
      await app.close();
      if (options.store === undefined) await store.close();
    },
  };
}

/** Makes an account's booked balance exactly `minor` now, whatever its history (sets its opening balance). */
export async function setBalance(store: Store, accountId: string, minor: number): Promise<void> {
  await store.db.execute(sql`
    UPDATE accounts
       SET balance_minor = ${minor} - coalesce(
             (SELECT sum(amount_minor) FROM ledger_entries WHERE ledger_account = ${accountId}), 0)
     WHERE account_id = ${accountId}`);
}

/** Rows of a query, the same on both drivers. */
export async function queryRows<T = Record<string, unknown>>(store: Store, query: SQL): Promise<T[]> {
  const result = (await store.db.execute(query)) as { rows: T[] };
  return result.rows;
}

/** Another gateway on the same database and sandbox app: a second process, or other settings. */
export function sibling(
  gateway: Gateway,
  options: Omit<GatewayOptions, 'store' | 'backend'> = {},
): Promise<Gateway> {
  return startGateway({
    ...options,
    store: gateway.store,
    config: { sandboxClientId: gateway.sandboxApp.clientId, ...options.config },
  });
}

/** The bank's date of an instant (now unless given): the gateway's "today" in its default time zone. */
export function bankDate(instant: Date = new Date()): string {
  return dateIn(instant, DEFAULT_TIME_ZONE);
}

/** A clock that tests move by hand. */
export function manualClock(start = Date.now()) {
  let now = start;
  return {
    clock: () => new Date(now),
    advance(ms: number): void {
      now += ms;
    },
  };
}

/** The built-in ledger of a gateway's database, as its mode runs it. */
export function builtInLedger(store: Store, config: Config, clock: Clock = () => new Date()): CoreBanking {
  return builtInOf(store, config, clock).coreBanking;
}

/** The built-in systems of a gateway's database, as its mode runs them. */
function builtInOf(store: Store, config: Config, clock: Clock = () => new Date()) {
  const policy = policyFor(config.mode, scenarioOf);
  return builtInSystems(store.db, {
    clock,
    enforceFunds: policy.enforceFunds,
    instantEid: policy.instantEid,
    scenarioOf: policy.scenarioOf,
  });
}

/** A service context on a gateway's database, for driving use cases (the scheduler) directly. */
export function serviceContext(
  gateway: Gateway,
  overrides: { clock?: Clock; coreBanking?: CoreBanking } = {},
): ServiceContext {
  return contextOf({
    config: gateway.config,
    store: gateway.store,
    ...(overrides.clock === undefined ? {} : { clock: overrides.clock }),
    ...(overrides.coreBanking === undefined ? {} : { systems: { coreBanking: overrides.coreBanking } }),
  });
}

export interface GatewayPair {
  readonly store: TestStore;
  readonly first: Gateway;
  /** On PostgreSQL its own connection pool on the same schema (a second process); on PGlite the same store. */
  readonly second: Gateway;
  close(): Promise<void>;
}

/** Two gateways sharing one database and one sandbox app, as two processes would. */
export async function startGatewayPair(
  backend: Backend,
  options: Omit<GatewayOptions, 'store' | 'backend'> = {},
): Promise<GatewayPair> {
  const store = await openTestStore(backend);
  const first = await startGateway({ ...options, store });
  const secondStore =
    backend === 'postgres'
      ? {
          ...(await openStore({ databaseUrl: TEST_DATABASE_URL, schemaName: store.schemaName })),
          schemaName: store.schemaName,
        }
      : store;
  const second = await startGateway({
    ...options,
    store: secondStore,
    config: { ...options.config, sandboxClientId: first.sandboxApp.clientId },
  });
  return {
    store,
    first,
    second,
    async close() {
      await first.close();
      await second.close();
      if (backend === 'postgres') await secondStore.close();
      await store.close();
    },
  };
}
