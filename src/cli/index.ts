// psd2-gateway serve | migrate | snapshot | cert | help. Each command loads only what it needs, so that
// `--help` answers at once.
import { ConfigError } from '../config.ts';

const USAGE = `usage: psd2-gateway <command>
  serve     start the gateway (default); settings come from the environment (see README)
  migrate   apply database migrations and exit
  snapshot  prepare the sandbox's start snapshot (npm run build does it)
  cert      make test certificates for live mode (psd2-gateway cert, for its usage)
  help      show this text`;

async function migrate(): Promise<void> {
  const { loadConfig } = await import('../config.ts');
  const { openStore } = await import('../store/database.ts');
  const { runMigrations } = await import('../store/migrate.ts');
  const config = loadConfig();
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const ran = await runMigrations(store);
    process.stdout.write(ran.length === 0 ? 'database is up to date\n' : `applied ${ran.join(', ')}\n`);
  } finally {
    await store.close();
  }
}

async function run(command: string | undefined): Promise<void> {
  switch (command ?? 'serve') {
    case 'serve':
      return (await import('../main.ts')).main();
    case 'migrate':
      return migrate();
    case 'snapshot': {
      const { writeSandboxSnapshot } = await import('../sandbox/snapshot.ts');
      process.stdout.write(`${await writeSandboxSnapshot()}\n`);
      return;
    }
    case 'cert':
      process.exitCode = await (await import('./cert.ts')).certCommand(process.argv.slice(3));
      return;
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      process.stderr.write(`${USAGE}\n`);
      process.exitCode = 2;
  }
}

run(process.argv[2]).catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`psd2-gateway: bad setting ${error.message}\n`);
  else process.stderr.write(`psd2-gateway: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
