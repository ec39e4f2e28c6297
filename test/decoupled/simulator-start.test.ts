// A live gateway started on the e-ID simulator (EID_PROVIDER=simulator, the only way live runs it) says
// at start, at warn level, that the simulator is no e-ID, and so does its /psu/eid page; the sandbox's
// start has no such warning.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createCa, issueServerCertificate } from '../../src/certificates/issue.ts';
import { loadConfig } from '../../src/config.ts';
import { LIVE_SIMULATOR_WARNING } from '../../src/main.ts';
import { pageText } from '../helpers/decoupled.ts';
import { liveSettings } from '../helpers/live-settings.ts';
import { startCapturing } from '../helpers/start.ts';
import { tlsRequest } from '../helpers/tls.ts';

const warnings = (lines: readonly Record<string, unknown>[]) =>
  lines
    .filter((line) => (line.level as number) >= 40)
    .map(({ level, msg, eidProvider }) => ({ level, msg, eidProvider }));

test('live on the simulator: a warning at start and on the e-ID pages', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'psd2-eid-sim-'));
  try {
    const ca = await createCa();
    const server = await issueServerCertificate(ca);
    await writeFile(join(dir, 'ca.pem'), ca.certificatePem);
    await writeFile(join(dir, 'server.pem'), server.certificatePem);
    await writeFile(join(dir, 'server.key'), server.keyPem);
    const config = loadConfig(liveSettings(dir));
    const started = await startCapturing(config);
    try {
      assert.deepEqual(warnings(started.lines), [
        { level: 40, msg: LIVE_SIMULATOR_WARNING, eidProvider: 'simulator' },
      ]);
      assert.equal(
        LIVE_SIMULATOR_WARNING,
        "the e-ID simulator is not the bank's e-ID: PSUs sign decoupled authorizations with their password alone (no strong customer authentication); for trying live without the bank's e-ID only",
      );
      const page = await tlsRequest(`${started.server.url}/psu/eid`, {
        method: 'GET',
        ca: ca.certificatePem,
      });
      assert.deepEqual(
        { status: page.status, text: pageText(String(page.body)) },
        {
          status: 200,
          text: "e-ID simulator, not the bank's e-ID: it identifies you by personal number and password alone. This gateway runs it for trying live without the bank's e-ID only. Mobile e-ID (simulator) Personal number, start token or QR code Open",
        },
      );
    } finally {
      await started.server.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the sandbox starts on the simulator without a warning', async () => {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SCHEDULER_INTERVAL_MS: '0',
    SEED_TEST_DATA: 'false',
  });
  assert.equal(config.eidProvider.kind, 'simulator');
  const started = await startCapturing(config);
  try {
    assert.deepEqual(warnings(started.lines), []);
    assert.ok(
      started.lines.some((line) => String(line.msg).startsWith('psd2-gateway ready at ')),
      'the ready line is logged',
    );
  } finally {
    await started.server.close();
  }
});
