// psd2-gateway serve | migrate | snapshot: the commands that run the gateway itself. They take no
// options: settings come from the environment (docs/settings.md), as in a container.
import { type Command, parseOptions } from './args.ts';

const SETTINGS = `settings (environment; docs/settings.md lists them all):
  PORT (3000), HOST, MODE (sandbox | live), DATABASE_URL (PostgreSQL; unset: embedded PGlite),
  DATA_DIR (PGlite on disk), BASE_PATH, PUBLIC_URL, TLS_CERT, TLS_KEY, TLS_CLIENT_CA, TLS_CRL,
  LOG_LEVEL, LOG_FORMAT (pretty | json), SANDBOX_CLIENT_ID, SANDBOX_REDIRECT_URI, SHUTDOWN_TIMEOUT_MS,
  DB_CONNECT_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS, WORKERS, EID_PROVIDER, PSU_OIDC_*, CORE_BANKING_*, FX_RATES`;

export const serveCommand: Command = {
  summary: 'start the gateway',
  usage: `usage: psd2-gateway serve

Starts the gateway and serves until SIGTERM or SIGINT (then finishes the requests in flight).

${SETTINGS}`,
  async run(args) {
    parseOptions(args, {});
    await (await import('../main.ts')).main();
    return 0;
  },
};

export const migrateCommand: Command = {
  summary: 'apply the database migrations',
  usage: `usage: psd2-gateway migrate

Applies the database migrations that have not run yet, then the database functions' definitions
whose text changed (src/store/definitions, the payments' transition rule), prints which, and exits.

${SETTINGS}`,
  async run(args) {
    parseOptions(args, {});
    const { loadConfig } = await import('../config.ts');
    const { openConfiguredStore } = await import('../main.ts');
    // Opening the store applies the migrations that have not run yet, and says which.
    const store = await openConfiguredStore(loadConfig());
    const ran = store.migrated;
    await store.close();
    process.stdout.write(ran.length === 0 ? 'database is up to date\n' : `applied ${ran.join(', ')}\n`);
    return 0;
  },
};

export const snapshotCommand: Command = {
  summary: "prepare the sandbox's start snapshot",
  usage: `usage: psd2-gateway snapshot

Writes the sandbox's start snapshot (a database migrated and seeded with the test customers) beside
the code, and prints where. npm run build does it.`,
  async run(args) {
    parseOptions(args, {});
    const { writeSandboxSnapshot } = await import('../sandbox/snapshot.ts');
    process.stdout.write(`${await writeSandboxSnapshot()}\n`);
    return 0;
  },
};
