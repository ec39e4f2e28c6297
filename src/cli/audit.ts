// psd2-gateway audit: the bank's reading of the audit trail (issue 39, docs/supervision.md). verify
// seals what is not sealed yet, then checks every seal: exit 0 when the trail is whole, 1 naming the
// first record changed, deleted or inserted out of order. export writes the records of a period as
// JSON lines. The database is the one the settings name, as for `psd2-gateway migrate`.
import { type Command, parseOptions, UsageError } from './args.ts';

const USAGE = `usage: psd2-gateway audit verify
       psd2-gateway audit export --from DATE --to DATE [--tpp ID] [--psu ID] [--resource ID]
  verify   seals the records not sealed yet and checks the whole trail: exit 0 when whole, 1 naming
           the first record that was changed, deleted or inserted out of order
  export   the records from --from (inclusive) to --to (exclusive), ISO dates or times, as JSON lines

settings (environment): DATABASE_URL (PostgreSQL; unset: embedded PGlite), DATA_DIR, AUDIT_KEY`;

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  tpp: { type: 'string' },
  psu: { type: 'string' },
  resource: { type: 'string' },
} as const;

function dateOption(name: string, value: string | undefined): Date {
  if (value === undefined) throw new UsageError(`export needs --${name}`);
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime()))
    throw new UsageError(`--${name} must be an ISO date or time`);
  return date;
}

export const auditCommand: Command = {
  summary: 'the audit trail: verify it, export it as JSON lines',
  usage: USAGE,
  async run(args) {
    const { positionals, values } = parseOptions(args, OPTIONS, true);
    const [action, extra] = positionals;
    if (action !== 'verify' && action !== 'export')
      throw new UsageError(`unknown action ${action?.slice(0, 40) ?? '(none)'}`);
    if (extra !== undefined) throw new UsageError(`unexpected argument ${extra.slice(0, 40)}`);
    const filter =
      action === 'export'
        ? {
            from: dateOption('from', values.from),
            to: dateOption('to', values.to),
            tppId: values.tpp,
            psuId: values.psu,
            resource: values.resource,
          }
        : undefined;
    const { loadConfig } = await import('../config.ts');
    const { openConfiguredStore } = await import('../main.ts');
    const { auditKey, exportEvents } = await import('../store/audit/trail.ts');
    const [{ sealAll }, { verifyTrail }] = await Promise.all([
      import('../store/audit/seal.ts'),
      import('../store/audit/verify.ts'),
    ]);
    const config = loadConfig();
    const store = await openConfiguredStore(config);
    try {
      if (filter !== undefined) {
        for await (const event of exportEvents(store.db, filter))
          process.stdout.write(`${JSON.stringify(event)}\n`);
        return 0;
      }
      const key = await auditKey(store.db, config.auditKey);
      await sealAll(store.db, key);
      const verdict = await verifyTrail(store.db, key);
      if (verdict.ok) {
        process.stdout.write(`audit trail whole: ${verdict.records} records in ${verdict.seals} seals\n`);
        return 0;
      }
      process.stdout.write(`audit trail broken at record ${verdict.seq}: ${verdict.problem}\n`);
      return 1;
    } finally {
      await store.close();
    }
  },
};
