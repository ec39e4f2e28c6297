// The cert command makes a CA, a server certificate and a QWAC; the gateway starts live on them over
// HTTPS with mutual TLS and enrolls the TPP; without TLS settings live mode refuses to start.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { UsageError } from '../../src/cli/args.ts';
import { certCommand } from '../../src/cli/cert.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { start } from '../../src/main.ts';
import { liveSettings } from '../helpers/live-settings.ts';
import { tlsRequest } from '../helpers/tls.ts';

test('cert command, then a live gateway on its certificates', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'psd2-certs-'));
  try {
    assert.equal(await certCommand.run(['ca', '--out', dir]), 0);
    assert.equal(
      await certCommand.run(['server', '--ca', dir, '--out', dir, '--host', 'localhost,127.0.0.1']),
      0,
    );
    assert.equal(
      await certCommand.run([
        'qwac',
        '--ca',
        dir,
        '--out',
        dir,
        '--org',
        'PSDGB-FCA-123456',
        '--name',
        'Open Wallet Ltd',
        '--roles',
        'PSP_PI',
      ]),
      0,
    );
    // A role no certificate carries is a usage error (the CLI prints it on one line, exit code 2).
    await assert.rejects(
      certCommand.run([
        'qwac',
        '--ca',
        dir,
        '--out',
        dir,
        '--org',
        'PSDGB-FCA-123456',
        '--name',
        'x',
        '--roles',
        'PSP_ZZ',
      ]),
      (error) =>
        error instanceof UsageError &&
        error.message === 'unknown role PSP_ZZ: use PSP_AS, PSP_PI, PSP_AI, PSP_IC',
    );
    const config = loadConfig(liveSettings(dir, { LOG_LEVEL: 'silent' }));
    const server = await start(config);
    try {
      assert.match(server.url, /^https:\/\/localhost:\d+$/);
      const ca = await readFile(join(dir, 'ca.pem'), 'utf8');
      const client = {
        certificatePem: await readFile(join(dir, 'qwac.pem'), 'utf8'),
        keyPem: await readFile(join(dir, 'qwac.key'), 'utf8'),
      };
      const enrolled = await tlsRequest(`${server.url}/psd2/v1/third-parties`, {
        method: 'POST',
        ca,
        client,
        headers: { 'TPP-Request-ID': '1', 'TPP-Transaction-ID': '1' },
      });
      assert.deepEqual(
        enrolled,
        { status: 201, body: { clientId: 'GB-FCA-123456' } },
        'a UK Open Banking certificate too',
      );
    } finally {
      await server.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('live mode refuses to start without TLS settings, naming them', () => {
  assert.throws(
    () => loadConfig({ MODE: 'live' }),
    (error: unknown) => error instanceof ConfigError && error.key === 'TLS_CERT',
  );
});
