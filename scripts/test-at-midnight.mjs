// npm run test:midnight: the unit suites again with the clock at 23:30 UTC on the coming 31 December,
// through Debian's faketime. There it is already the next day, month and year in the bank's time zone
// (Europe/Stockholm) and not yet in UTC, so a date taken in UTC where the bank's is meant fails here,
// whatever the hour CI runs at (a CI run that began before midnight UTC found one such test).
// On PGlite only: PostgreSQL runs outside the faked clock, and its now() would be a year apart. Without
// faketime the run says it is skipped and passes.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const faketime = spawnSync('faketime', ['--version'], { stdio: 'ignore' });
if (faketime.error !== undefined) {
  console.log('# test:midnight skipped: faketime is not installed (Debian package faketime)');
  process.exit(0);
}

const instant = `${new Date().getUTCFullYear()}-12-31 23:30:00`;
// An offset from the real clock, not faketime's "@" (start at): with "@" each process's clock starts at
// the instant when that process starts, so the gateways, the probe and the report a test spawns would
// each keep a clock of their own, seconds apart (a report's "now" before the probe's last records).
// With an offset every process reads the same time.
const offsetSeconds = Math.round((Date.parse(`${instant.replace(' ', 'T')}Z`) - Date.now()) / 1000);
// redis-server does not start under faketime. Chromium does, but a browser suite takes minutes there
// (2 minutes for sandbox-page alone), and the browser suites keep no dates of their own: what the PSU
// is shown, a consent's last day too, is asserted without a browser.
const LEFT_OUT = ['test/rate-limits/redis.test.ts', 'test/browser/'];
const files = readdirSync('test', { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(join('test', dir.name))
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => `test/${dir.name}/${name}`),
  )
  .filter((file) => !LEFT_OUT.some((left) => (left.endsWith('/') ? file.startsWith(left) : file === left)))
  .sort();

console.log(
  `# test:midnight: ${files.length} suites, the clock at ${instant} UTC; left out: ${LEFT_OUT.join(', ')}`,
);
const env = { ...process.env, TZ: 'UTC', FAKETIME_DONT_FAKE_MONOTONIC: '1' };
delete env.TEST_DATABASE_URL;
const run = spawnSync(
  'faketime',
  [
    '-f',
    `${offsetSeconds >= 0 ? '+' : ''}${offsetSeconds}s`,
    process.execPath,
    '--import',
    'tsx',
    '--test',
    '--test-reporter=dot',
    ...files,
  ],
  { stdio: 'inherit', env },
);
process.exit(run.status ?? 1);
