// psd2-gateway serve | migrate | help
import { ConfigError, loadConfig } from '../config.ts';
import { main } from '../main.ts';
import { openStore } from '../store/database.ts';
import { runMigrations } from '../store/migrate.ts';
import { certCommand } from './cert.ts';

const USAGE = `usage: psd2-gateway <command>
  serve     start the gateway (default); settings come from the environment (see README)
  migrate   apply database migrations and exit
  cert      make test certificates for live mode (psd2-gateway cert, for its usage)
  help      show this text`;

async function migrate(): Promise<void> {
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
      return main();
    case 'migrate':
      return migrate();
    case 'cert':
      process.exitCode = await certCommand(process.argv.slice(3));
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
