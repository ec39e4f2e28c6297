// LOG_FORMAT: JSON lines for machines (the default when stdout is no terminal), pino-pretty's readable
// lines for a person at one. The pretty printer is loaded only when chosen: a process that logs JSON
// never reads it. Each case runs in a process of its own, as the gateway does, writing to its stdout.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Logs a start line, a request line and an error through createLogger; says whether pino-pretty loaded. */
const SCRIPT = `
import { createRequire } from 'node:module';
import { configWith } from './src/config.ts';
import { createLogger } from './src/http/logging.ts';
const logger = createLogger(configWith({ logFormat: process.argv[1] }));
logger.info({ phase: 'modules', ms: 251 }, 'code loaded in 251 ms');
logger.info({ req: { method: 'POST', url: '/psd2/v1/consents?x=1', headers: {} }, res: { statusCode: 201 }, responseTime: 12.4, reqId: 'req-1' }, 'request completed');
logger.error({ err: new Error('the database went away') }, 'request errored');
const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('pino-pretty'));
setTimeout(() => console.error(loaded ? 'pino-pretty loaded' : 'pino-pretty not loaded'), 50);
`;

function spawnRun(format: string): { stdout: string; stderr: string } {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', SCRIPT, format],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(child.status, 0, child.stderr);
  return { stdout: child.stdout, stderr: child.stderr };
}

describe('the log format', () => {
  test('LOG_FORMAT is pretty or json; unset, pretty at a terminal and json elsewhere', () => {
    assert.equal(loadConfig({}, true).logFormat, 'pretty');
    assert.equal(loadConfig({}, false).logFormat, 'json');
    assert.equal(loadConfig({ LOG_FORMAT: 'json' }, true).logFormat, 'json');
    assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }, false).logFormat, 'pretty');
    assert.throws(() => loadConfig({ LOG_FORMAT: 'text' }), ConfigError);
  });

  test('json: one object a line, and pino-pretty is never loaded', () => {
    const child = spawnRun('json');
    const lines = child.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map(({ level, msg, phase, reqId }) => ({ level, msg, phase, reqId })),
      [
        { level: 30, msg: 'code loaded in 251 ms', phase: 'modules', reqId: undefined },
        { level: 30, msg: 'request completed', phase: undefined, reqId: 'req-1' },
        { level: 50, msg: 'request errored', phase: undefined, reqId: undefined },
      ],
    );
    assert.equal(child.stderr.trim(), 'pino-pretty not loaded');
  });

  test('pretty: a time, the level and the message a line; a request as method, path, status, time', () => {
    const child = spawnRun('pretty');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colours are what is removed
    const lines = child.stdout.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    assert.match(lines[0]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: code loaded in 251 ms$/);
    assert.match(
      lines[1]!,
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/psd2\/v1\/consents 201 12 ms \(req-1\)$/,
    );
    assert.match(lines[2]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: request errored$/);
    assert.ok(child.stdout.includes('Error: the database went away'), child.stdout);
    assert.ok(child.stdout.includes('at '), 'the error keeps its stack');
    assert.equal(child.stderr.trim(), 'pino-pretty loaded');
  });
});
