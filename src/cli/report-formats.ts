// The availability report as CSV (one row per day and interface, then the period's) and as the HTML page
// a bank publishes: self-contained (no external asset), every text escaped, one table per day and one for
// the period with captions and header cells for screen readers.
import { escapeHtml } from '../domain/text.ts';
import type { AvailabilityReport, Figures } from './availability-report.ts';

const COLUMNS: readonly (readonly [keyof Figures, string])[] = [
  ['uptimeSeconds', 'Uptime (s)'],
  ['downtimeSeconds', 'Downtime (s)'],
  ['uptimePercent', 'Uptime (%)'],
  ['downtimePercent', 'Downtime (%)'],
  ['unmonitoredSeconds', 'Not monitored (s)'],
  ['requests', 'Requests'],
  ['averageMs', 'Average response (ms)'],
  ['p95Ms', '95th percentile response (ms)'],
  ['errors5xx', 'Error answers 5xx'],
  ['errors503', 'Error answers 503'],
  ['errorRate5xxPercent', 'Error rate 5xx (%)'],
  ['errorRate503Percent', 'Error rate 503 (%)'],
];

const NAMES: Readonly<Record<Figures['interface'], string>> = {
  'payment-initiation': 'Payment initiation',
  'account-information': 'Account information',
  'confirmation-of-funds': 'Confirmation of funds',
  authorization: 'Authorization',
};

const CSV_HEADER = [
  'date',
  'interface',
  'uptime_seconds',
  'downtime_seconds',
  'uptime_percent',
  'downtime_percent',
  'unmonitored_seconds',
  'requests',
  'average_ms',
  'p95_ms',
  'errors_5xx',
  'errors_503',
  'error_rate_5xx_percent',
  'error_rate_503_percent',
];

const cell = (value: Figures[keyof Figures]) => (value === null ? '' : String(value));

/** CSV (RFC 4180, no field needs quoting): the period's rows have `period` as their date. */
export function reportCsv(report: AvailabilityReport): string {
  const rows = [
    ...report.days.flatMap((day) => day.interfaces.map((figures) => [day.date, figures] as const)),
    ...report.period.map((figures) => ['period', figures] as const),
  ];
  const lines = rows.map(([date, figures]) =>
    [date, figures.interface, ...COLUMNS.map(([key]) => cell(figures[key]))].join(','),
  );
  return `${[CSV_HEADER.join(','), ...lines].join('\r\n')}\r\n`;
}

function table(caption: string, rows: readonly Figures[]): string {
  const head = COLUMNS.map(([, title]) => `<th scope="col">${escapeHtml(title)}</th>`).join('');
  const body = rows
    .map(
      (figures) =>
        `<tr><th scope="row">${escapeHtml(NAMES[figures.interface])}</th>${COLUMNS.map(
          ([key]) => `<td>${escapeHtml(figures[key] === null ? '–' : String(figures[key]))}</td>`,
        ).join('')}</tr>`,
    )
    .join('\n');
  return `<table>\n<caption>${escapeHtml(caption)}</caption>\n<thead><tr><th scope="col">Interface</th>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

export function reportHtml(report: AvailabilityReport): string {
  const title = `Availability and performance of the dedicated interface, ${report.from} to ${report.to}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1a1a1a; }
table { border-collapse: collapse; margin: 1.5rem 0; }
caption { text-align: left; font-weight: 600; padding: 0.5rem 0; }
th, td { border: 1px solid #888; padding: 0.3rem 0.5rem; }
td { text-align: right; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>Statistics under Article 32(4) of Commission Delegated Regulation (EU) 2018/389, with the indicators of
EBA/GL/2018/07 Guideline 2. Days run from midnight to midnight (${escapeHtml(report.timeZone)}). The interface
counts as down from the first of five consecutive requests not answered within 30 seconds until a request
is answered again; uptime is 100% minus downtime. The 95th percentile is ${escapeHtml(report.p95Precision)}.</p>
${table(`Period ${report.from} to ${report.to}`, report.period)}
${report.days.map((day) => table(`Day ${day.date}`, day.interfaces)).join('\n')}
</main>
</body>
</html>
`;
}
