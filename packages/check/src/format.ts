// The results as a table (for people), JSON (for programs) or JUnit XML (for CI). What an endpoint
// answered reaches the output: the table shows no control characters, so an answer cannot move the
// terminal's cursor or colour it.
import type { CheckResult } from './check.ts';
import { junit } from './junit.ts';
import type { CheckOptions, Format } from './options.ts';
import { summaryOf } from './runner.ts';

/**
 * Where the CONTRACT column's sources are, in the psd2-gateway repository: `spec …` cites the contract,
 * `API-NOTES …` the notes on what the real service does where the contract is silent.
 */
const CONTRACT_SOURCES = {
  spec: 'docs/contract/spec/payment-initiation-service.md',
  'API-NOTES': 'docs/contract/API-NOTES.md',
} as const;

function summaryLine(results: readonly CheckResult[]): string {
  const { total, passed, failed, skipped } = summaryOf(results);
  return `${total} checks: ${passed} passed, ${failed} failed, ${skipped} skipped`;
}

/** The deviation column: what was expected and what came, or why the check was skipped. */
function deviationOf(result: CheckResult): string {
  if (result.result === 'fail') return `expected ${result.expected}; got ${result.actual}`;
  return result.reason ?? '';
}

function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

function table(results: readonly CheckResult[]): string {
  const rows = [
    ['RESULT', 'CHECK', 'CONTRACT', 'DEVIATION'],
    ...results.map((result) =>
      [result.result.toUpperCase(), result.id, result.ref, deviationOf(result)].map(printable),
    ),
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => (column < 3 ? cell.padEnd(widths[column]!) : cell))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n\n${summaryLine(results)}\n`;
}

function json(results: readonly CheckResult[], options: CheckOptions): string {
  const ms = results.reduce((sum, result) => sum + result.ms, 0);
  const report = {
    baseUrl: options.baseUrl,
    contract: CONTRACT_SOURCES,
    checks: results,
    summary: { ...summaryOf(results), ms },
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

export function formatResults(results: readonly CheckResult[], options: CheckOptions): string {
  const formats: Record<Format, () => string> = {
    table: () => table(results),
    json: () => json(results, options),
    junit: () => junit(results, options),
  };
  return formats[options.format]();
}
