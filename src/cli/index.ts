// psd2-gateway <command>: serve | migrate | snapshot | cert | tpp | audit | demo | check | help. A command's module is
// imported only when it is named, and heavy code inside it only when it runs: `--help` and `--version`
// answer at once, never start a server and never touch a database. The demo and the checker are packages
// of their own (packages/demo, packages/check); this file is the one place of src/ that imports them.
import { ConfigError, StartError } from '../config.ts';
import { type Command, UsageError } from './args.ts';

const COMMANDS: Record<string, { readonly summary: string; load(): Promise<Command> }> = {
  serve: {
    summary: 'start the gateway (the default command); settings come from the environment',
    load: async () => (await import('./serve.ts')).serveCommand,
  },
  migrate: {
    summary: 'apply the database migrations and exit',
    load: async () => (await import('./serve.ts')).migrateCommand,
  },
  snapshot: {
    summary: "prepare the sandbox's start snapshot (npm run build does it)",
    load: async () => (await import('./serve.ts')).snapshotCommand,
  },
  cert: {
    summary: 'make test certificates for live mode (a CA, server certificates, QWACs, CRLs)',
    load: async () => (await import('./cert.ts')).certCommand,
  },
  tpp: {
    summary: "the bank's actions on enrolled TPPs (remove a certificate)",
    load: async () => (await import('./tpp.ts')).tppCommand,
  },
  probe: {
    summary: "watch the gateway's interfaces (EBA/GL/2018/07) and record each answer, for the report",
    load: async () => (await import('./probe.ts')).probeCommand,
  },
  report: {
    summary: 'the RTS Art. 32 statistics: report availability --from DATE --to DATE [--format json|csv|html]',
    load: async () => (await import('./report.ts')).reportCommand,
  },
  audit: {
    summary: 'the audit trail: verify it, export it as JSON lines',
    load: async () => (await import('./audit.ts')).auditCommand,
  },
  demo: {
    summary: 'walk the flows (redirect, decoupled, basket, account information) against a sandbox',
    load: async () => (await import('@psd2-gateway/demo')).demoCommand({ startSandbox }),
  },
  check: {
    summary: 'check an endpoint against the contract: flows, statuses, headers, fields, error shapes',
    load: async () => (await import('@psd2-gateway/check')).checkCommand,
  },
};

/**
 * The demo's sandbox when no --base-url is given: one in this process, as `serve` starts one (its app
 * found like any sandbox's, in the test data), but on a free port of 127.0.0.1, in memory, quiet,
 * without the scheduler. The server is imported only here, when the demo runs without a URL.
 */
async function startSandbox(): Promise<{ url: string; close: () => Promise<void> }> {
  const { configWith } = await import('../config.ts');
  const { start } = await import('../main.ts');
  const config = configWith({ port: 0, host: '127.0.0.1', logLevel: 'warn', schedulerIntervalMs: 0 });
  const server = await start(config);
  return { url: server.url, close: server.close };
}

const USAGE = `usage: psd2-gateway <command> [options]

${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(9)} ${command.summary}`)
  .join('\n')}
  help      show this text (psd2-gateway <command> --help: a command's own options)

  --version print the version`;

const HELP = ['--help', '-h'];

async function run(args: readonly string[]): Promise<number> {
  const [name = 'serve', ...rest] = args;
  if (name === 'help' || HELP.includes(name)) {
    const asked = name === 'help' ? rest[0] : undefined;
    if (asked !== undefined && COMMANDS[asked] !== undefined) {
      process.stdout.write(`${(await COMMANDS[asked].load()).usage}\n`);
      return 0;
    }
    process.stdout.write(`${USAGE}\n`);
    return asked === undefined ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`psd2-gateway ${(await import('../version.ts')).VERSION}\n`);
    return 0;
  }
  const entry = COMMANDS[name];
  if (entry === undefined) {
    process.stderr.write(`psd2-gateway: unknown command ${name.slice(0, 40)} (psd2-gateway help)\n`);
    return 2;
  }
  const command = await entry.load();
  if (rest.some((arg) => HELP.includes(arg))) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`psd2-gateway ${name}: ${error.message} (psd2-gateway ${name} --help)\n`);
    return 2;
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`psd2-gateway: bad setting ${error.message}\n`);
    else if (error instanceof StartError)
      process.stderr.write(`psd2-gateway: cannot start: ${error.message}\n`);
    else process.stderr.write(`psd2-gateway: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
