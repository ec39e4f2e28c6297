// The bench's results: bench/results.json (every figure), the markdown table docs/benchmarks.md shows,
// and bench/results.svg, a bar chart of the ratios (median, whiskers from the lowest to the highest
// round). `node --import tsx bench/report.ts` prints the table and redraws the chart from results.json;
// with `--docs` it also writes the table into docs/benchmarks.md between its bench-table markers.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Figure, Spread } from './figures.ts';

export const RESULTS_FILE = 'bench/results.json';
export const CHART_FILE = 'bench/results.svg';

export interface Results {
  readonly generatedAt: string;
  readonly machine: { readonly cpus: number; readonly node: string; readonly platform: string };
  readonly settings: Record<string, number | string>;
  readonly prism: string;
  readonly durationSeconds?: number;
  readonly figures: readonly Figure[];
  readonly start?: unknown;
  /** The gateway's resident memory under load and over a soak, per backend (bench/memory.ts). */
  readonly memory?: unknown;
  readonly tls?: unknown;
}

/** Issue 18's targets on PostgreSQL, realistic mix, 50 connections (ratio to the baseline). */
export const TARGETS: Readonly<Record<string, number>> = {
  initiation: 0.5,
  'status (ACTC)': 0.6,
  'five-step flow': 0.3,
  'account list': 0.3,
  'transactions (90 days)': 0.3,
  'funds confirmation': 0.3,
  'basket of 20': 0.2,
  executions: 0.7,
  'initiation vs Prism': 5,
};

const key = (figure: Figure) => `${figure.scenario}|${figure.mix}|${figure.backend}|${figure.connections}`;

/** The figures of `earlier` not measured again, then `fresh`: a run of some scenarios keeps the others. */
export function mergeFigures(earlier: readonly Figure[], fresh: readonly Figure[]): Figure[] {
  const measured = new Set(fresh.map(key));
  return [...earlier.filter((figure) => !measured.has(key(figure))), ...fresh].sort(order);
}

// The figures with raw(work) storing its payments (its flows) too follow initiation's (the flow's): no target.
const SCENARIO_ORDER = Object.keys(TARGETS).flatMap((scenario) =>
  scenario === 'initiation' || scenario === 'five-step flow'
    ? [scenario, `${scenario}, stored`, `${scenario}, stored by raw(work) + pg`]
    : [scenario],
);
function order(a: Figure, b: Figure): number {
  const rank = (figure: Figure) => [
    figure.backend === 'PostgreSQL' ? 0 : 1,
    SCENARIO_ORDER.indexOf(figure.scenario),
    -figure.connections,
    figure.mix === 'hot' ? 0 : 1,
  ];
  const [x, y] = [rank(a), rank(b)];
  for (let index = 0; index < x.length; index += 1) if (x[index] !== y[index]) return x[index]! - y[index]!;
  return 0;
}

export function readResults(): Results | undefined {
  return existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Results) : undefined;
}

const range = (value: Spread, digits = 0) =>
  value.min === value.max
    ? value.median.toFixed(digits)
    : `${value.median.toFixed(digits)} (${value.min.toFixed(digits)}-${value.max.toFixed(digits)})`;

/** The markdown table of every figure. */
export function markdownTable(results: Results): string {
  const lines = [
    '| backend | scenario | mix | conn | gateway | baseline | ratio | p99 ms gateway / baseline | target |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const figure of results.figures) {
    const target =
      figure.backend === 'PostgreSQL' && figure.mix === 'realistic' && figure.connections === 50
        ? TARGETS[figure.scenario]
        : undefined;
    const p99Target =
      figure.scenario === 'initiation' && figure.connections === 10 && figure.backend === 'PostgreSQL'
        ? ' (target p99 <= 3x)'
        : '';
    lines.push(
      `| ${figure.backend} | ${figure.scenario} | ${figure.mix} | ${figure.connections} | ${figure.measured === undefined ? '' : `${figure.measured}: `}${range(figure.gateway)} ${figure.unit} | ${figure.baseline} ${range(figure.raw)} | **${range(figure.ratio, 2)}x** | ${figure.p99Ms.gateway.median} / ${figure.p99Ms.raw.median} (${range(figure.p99Ratio, 1)}x)${p99Target} | ${target === undefined ? '' : `>= ${target}x`} |`,
    );
  }
  return lines.join('\n');
}

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A figure's row in the chart: backend, scenario, mix, connections and, unless raw(work), its baseline. */
function chartLabel(figure: Figure): string {
  const against =
    figure.measured !== undefined
      ? ` (${figure.measured} to ${figure.baseline})`
      : figure.baseline === 'raw(work)'
        ? ''
        : ` (to ${figure.baseline})`;
  return `${figure.backend} · ${figure.scenario} · ${figure.mix} · ${figure.connections} conn${against}`;
}

/** A horizontal bar chart of the ratios: bar at the median, whisker over the rounds' range. */
export function svgChart(results: Results): string {
  const figures = results.figures;
  const labels = figures.map(chartLabel);
  const rowHeight = 18;
  const top = 56;
  // Wide enough for the longest label (about 5.6 px a character at 11 px sans-serif).
  const labelWidth = Math.max(360, Math.ceil(Math.max(...labels.map((label) => label.length)) * 5.6) + 16);
  const chartWidth = 500;
  const width = labelWidth + chartWidth + 70;
  const height = top + figures.length * rowHeight + 40;
  const ceiling = Math.max(1, Math.ceil(Math.max(...figures.map((figure) => figure.ratio.max), 0) * 4) / 4);
  const x = (ratio: number) => labelWidth + (Math.min(ratio, ceiling) / ceiling) * chartWidth;
  const colors: Record<string, string> = { PostgreSQL: '#336699', PGlite: '#d9822b' };
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    '<title>psd2-gateway bench: ratios to the baseline (bench/results.json)</title>',
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="10" y="18" font-size="14" font-weight="bold">psd2-gateway: ratio to the baseline in the same run (median of ${results.settings.rounds} alternating rounds; whiskers: lowest to highest)</text>`,
    `<text x="10" y="36" fill="#555">${escapeXml(`${results.machine.cpus} cores, node ${results.machine.node}, ${results.settings.seconds} s per run; baseline raw(work) unless named; solid: realistic mix, light: hot mix; red tick: issue 18 target`)}</text>`,
  ];
  for (let tick = 0; tick <= ceiling + 1e-9; tick += ceiling > 2 ? 0.5 : 0.25) {
    const at = x(tick);
    parts.push(
      `<line x1="${at}" y1="${top - 6}" x2="${at}" y2="${top + figures.length * rowHeight}" stroke="${tick === 1 ? '#999' : '#e3e3e3'}"/>`,
      `<text x="${at}" y="${top + figures.length * rowHeight + 14}" text-anchor="middle" fill="#555">${tick.toFixed(2)}x</text>`,
    );
  }
  for (const [index, figure] of figures.entries()) {
    const y = top + index * rowHeight;
    const middle = y + rowHeight / 2;
    parts.push(
      `<text x="${labelWidth - 8}" y="${middle + 4}" text-anchor="end">${escapeXml(labels[index]!)}</text>`,
      `<rect x="${labelWidth}" y="${y + 3}" width="${Math.max(1, x(figure.ratio.median) - labelWidth)}" height="${rowHeight - 6}" fill="${colors[figure.backend] ?? '#777'}" fill-opacity="${figure.mix === 'hot' ? 0.45 : 1}"/>`,
      `<line x1="${x(figure.ratio.min)}" y1="${middle}" x2="${x(figure.ratio.max)}" y2="${middle}" stroke="#000"/>`,
      `<line x1="${x(figure.ratio.min)}" y1="${middle - 4}" x2="${x(figure.ratio.min)}" y2="${middle + 4}" stroke="#000"/>`,
      `<line x1="${x(figure.ratio.max)}" y1="${middle - 4}" x2="${x(figure.ratio.max)}" y2="${middle + 4}" stroke="#000"/>`,
      `<text x="${Math.max(x(figure.ratio.max), x(figure.ratio.median)) + 6}" y="${middle + 4}">${figure.ratio.median.toFixed(2)}x</text>`,
    );
    const target = TARGETS[figure.scenario];
    if (
      target !== undefined &&
      target <= ceiling &&
      figure.backend === 'PostgreSQL' &&
      figure.mix === 'realistic' &&
      figure.connections === 50
    )
      parts.push(
        `<line x1="${x(target)}" y1="${y + 1}" x2="${x(target)}" y2="${y + rowHeight - 1}" stroke="#d11" stroke-width="2"/>`,
      );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

const TABLE_FILE = 'docs/benchmarks.md';
const BEGIN = '<!-- bench-table: generated by `node --import tsx bench/report.ts --docs` -->';
const END = '<!-- /bench-table -->';

/** docs/benchmarks.md's table between the markers, from results.json. */
function writeDocsTable(results: Results): void {
  const page = readFileSync(TABLE_FILE, 'utf8');
  const begin = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${TABLE_FILE} has no ${BEGIN} ... ${END}`);
  const table = `${BEGIN}\n\n${markdownTable(results)}\n\n${END}`;
  writeFileSync(TABLE_FILE, page.slice(0, begin) + table + page.slice(end + END.length));
}

export function writeResults(results: Results): void {
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(CHART_FILE, svgChart(results));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = readResults();
  if (results === undefined) {
    console.error(`${RESULTS_FILE} is missing: run npm run bench first`);
    process.exitCode = 1;
  } else {
    writeFileSync(CHART_FILE, svgChart(results));
    console.log(markdownTable(results));
    console.log(`\n${results.prism}`);
    if (process.argv.includes('--docs')) writeDocsTable(results);
  }
}
