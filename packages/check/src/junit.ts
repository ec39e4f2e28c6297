// JUnit XML, as CI servers read it: one testsuite, a testcase per check, <failure> with the deviation
// and the contract row, <skipped> with the reason. Everything an endpoint answered is escaped, and
// characters XML 1.0 cannot hold are replaced.
import type { CheckResult } from './check.ts';
import type { CheckOptions } from './options.ts';
import { summaryOf } from './runner.ts';

function xmlEscape(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(result: CheckResult): string {
  const area = result.id.split('.')[0]!;
  const open = `    <testcase classname="psd2-gateway.check.${xmlEscape(area)}" name="${xmlEscape(`${result.id}: ${result.title}`)}" time="${seconds(result.ms)}"`;
  if (result.result === 'pass') return `${open}/>`;
  if (result.result === 'skip') {
    return `${open}>\n      <skipped message="${xmlEscape(result.reason ?? '')}"/>\n    </testcase>`;
  }
  const message = `expected ${result.expected}; got ${result.actual}`;
  const text = `contract: ${result.ref}\nexpected: ${result.expected}\ngot: ${result.actual}`;
  return `${open}>\n      <failure type="deviation" message="${xmlEscape(message)}">${xmlEscape(text)}</failure>\n    </testcase>`;
}

export function junit(results: readonly CheckResult[], options: CheckOptions): string {
  const { total, failed, skipped } = summaryOf(results);
  const time = seconds(results.reduce((sum, result) => sum + result.ms, 0));
  const counts = `tests="${total}" failures="${failed}" errors="0" skipped="${skipped}" time="${time}"`;
  const name = xmlEscape(`psd2-gateway check ${options.baseUrl}`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${name}" ${counts}>`,
    `  <testsuite name="${name}" ${counts}>`,
    ...results.map(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
