// psd2-gateway report availability: the RTS Art. 32(4) statistics of a period, from the gateway's
// records of its answers and the probe's outcomes (cli/availability-report.ts), as JSON, CSV or HTML on
// stdout. The database is the one the settings name; with PGlite, the probe's outcomes are in the
// probe's own directory (--probe-data-dir).
import { type Command, oneOf, parseOptions, required, UsageError } from './args.ts';

const USAGE = `usage: psd2-gateway report availability --from DATE --to DATE [--format json|csv|html]
                                         [--probe-data-dir DIR]
  availability     per day (midnight to midnight in TIME_ZONE) and for the period, per interface (payment initiation, account
                   information, confirmation of funds, authorization): uptime and downtime
                   (EBA/GL/2018/07), requests, average and 95th percentile response time, error rates
  --from, --to     the first and last day, YYYY-MM-DD (at most 366 days)
  --format         json (default), csv, or html (the page to publish)
  --probe-data-dir PGlite only: the probe's own DATA_DIR, where its outcomes are

settings (environment): DATABASE_URL (PostgreSQL; unset: embedded PGlite), DATA_DIR, TIME_ZONE`;

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  format: { type: 'string' },
  'probe-data-dir': { type: 'string' },
} as const;

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function dayOf(value: string, name: string): number {
  const at = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== value)
    throw new UsageError(`--${name} must be a date YYYY-MM-DD`);
  return at;
}

export const reportCommand: Command = {
  summary: 'the RTS Art. 32 statistics: report availability --from DATE --to DATE [--format json|csv|html]',
  usage: USAGE,
  async run(args) {
    const { positionals, values } = parseOptions(args, OPTIONS, true);
    const [kind, extra] = positionals;
    if (kind !== 'availability') throw new UsageError(`unknown report ${kind?.slice(0, 40) ?? '(none)'}`);
    if (extra !== undefined) throw new UsageError(`unexpected argument ${extra.slice(0, 40)}`);
    const from = required(values.from, 'from');
    const to = required(values.to, 'to');
    const start = dayOf(from, 'from');
    const last = dayOf(to, 'to');
    if (last < start) throw new UsageError('--to must not be before --from');
    if ((last - start) / DAY_MS >= 366) throw new UsageError('the period must be at most 366 days');
    const format = oneOf(values.format, 'format', ['json', 'csv', 'html'], 'json');
    const { loadConfig } = await import('../config.ts');
    const config = loadConfig();
    const probeDir = values['probe-data-dir'];
    if (probeDir !== undefined && config.databaseUrl !== undefined)
      throw new UsageError('--probe-data-dir is for PGlite: with DATABASE_URL the probe writes there');
    const { openConfiguredStore } = await import('../main.ts');
    const repository = await import('../store/availability-repository.ts');
    const { buildReport } = await import('./availability-report.ts');
    // A day from its midnight in TIME_ZONE; what is read starts a day earlier and ends a day later (UTC).
    const end = new Date(last + 2 * DAY_MS);
    const store = await openConfiguredStore(config);
    let records: Parameters<typeof buildReport>[1];
    try {
      const minutes = await repository.minutesBetween(store.db, new Date(start - DAY_MS), end);
      const latency = await repository.latencyBetween(store.db, new Date(start - DAY_MS), end);
      // A run of failures under way when the period begins is seen from the day before.
      const readProbes = (db: typeof store.db) =>
        repository.probeOutcomesBetween(db, new Date(start - DAY_MS), end);
      let probes: Awaited<ReturnType<typeof readProbes>>;
      if (probeDir === undefined) probes = await readProbes(store.db);
      else {
        const probeStore = await openConfiguredStore({ ...config, dataDir: probeDir });
        try {
          probes = await readProbes(probeStore.db);
        } finally {
          await probeStore.close();
        }
      }
      records = { minutes, latency, probes };
    } finally {
      await store.close();
    }
    const report = buildReport({ from, to, timeZone: config.timeZone }, records, new Date());
    const { reportCsv, reportHtml } = await import('./report-formats.ts');
    process.stdout.write(
      format === 'json'
        ? `${JSON.stringify(report, null, 2)}\n`
        : format === 'csv'
          ? reportCsv(report)
          : reportHtml(report),
    );
    return 0;
  },
};
