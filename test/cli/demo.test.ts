// psd2-gateway demo as a user runs it, a child process through the CLI's entry: every flow against a
// sandbox it starts itself, one flow against a running gateway (given the app, or finding it in the
// test data), a failing gateway and a closed port (exit 1, one line saying which step and why), --help
// (usage, nothing started) and bad options (exit 2, one line).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { USAGE } from '@psd2-gateway/demo';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { refusedPort } from '../helpers/ports.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `psd2-gateway demo ...` from the TypeScript sources, bounded in time. */
function demo(args: string[]): Promise<Ran> {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/index.ts', 'demo', ...args], {
    cwd: ROOT,
    timeout: 120_000,
  }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: Ran) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
  );
}

/**
 * The transcript with what changes from run to run put in words: ids, ports, times, the size of the
 * test data and of a history that depends on the day.
 */
function transcript(stdout: string): string[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) =>
      line
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
        .replace(/\b[0-9a-f]{32}\b/g, '<app>')
        .replace(/http:\/\/(localhost|127\.0\.0\.1):\d+/g, 'http://$1:<port>')
        .replace(/ {2}\(\d+ ms\)$/, '')
        .replace(/\d+ PSUs/, '<n> PSUs')
        .replace(/\d+ transactions/, '<n> transactions')
        .replace(/validUntil \d{4}-\d{2}-\d{2}/, 'validUntil <date>')
        .replace(/in \d+\.\d s$/, 'in <s> s')
        .replace(/keyid [\w-]{43}/, 'keyid <kid>'),
    );
}

const PIS_TOKEN = 'POST /oauth2/token/1.0 -> 200  scope PIS, token_type Bearer, expires_in 86400';
const PSU_TOKEN = 'POST /oauth2/token/1.0 -> 200  token_type Bearer, expires_in 900';
const AUTHORIZED = 'GET /oauth2/authorize/1.0 -> 302  code received, state echoed';
const INITIATED =
  'POST /psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer -> 200  ' +
  'paymentId <id>, transactionStatus ACTC, scaMethods REDIRECT DECOUPLED';
const EXECUTED =
  'PUT /psd2/v1/payments/handelsbanken-domestic-credit-transfer/<id> -> 200  transactionStatus ACCC';
const STATUS =
  'GET /psd2/v1/payments/handelsbanken-domestic-credit-transfer/<id>/status -> 200  transactionStatus ACCC';

/** The steps of the redirect flow, numbered from `first` of `total`. */
function redirectSteps(first: number, total: number): string[] {
  const n = (step: number) => `[${String(first + step).padStart(String(total).length)}/${total}]`;
  return [
    'redirect: a domestic payment, authorized in the OAuth redirect flow',
    `${n(0)} ${PIS_TOKEN}`,
    `${n(1)} ${INITIATED}`,
    `${n(2)} ${AUTHORIZED}`,
    `${n(3)} ${PSU_TOKEN}`,
    `${n(4)} ${EXECUTED}`,
    `${n(5)} ${STATUS}`,
  ];
}

/** The notified flow's steps, numbered from `first` of `total`. */
function notifiedSteps(first: number, total: number): string[] {
  const n = (step: number) => `[${String(first + step).padStart(String(total).length)}/${total}]`;
  const pad = ' '.repeat(n(0).length + 1);
  return [
    'notified: a payment whose status changes the gateway POSTs, signed, to a receiver started here',
    `${n(0)} ${PIS_TOKEN}`,
    `${n(1)} GET /.well-known/jwks.json -> 200  1 signing key, ES256`,
    `${n(2)} POST /psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer -> 200  paymentId <id>, notified of SCA PROCESS (ASPSP-Notification-Content status=SCA,PROCESS)`,
    `${n(3)} ${AUTHORIZED}`,
    `${n(4)} ${PSU_TOKEN}`,
    `${n(5)} ${EXECUTED}`,
    `${n(6)} the notifications at http://127.0.0.1:<port>/notifications`,
    `${pad}SCA started: signature verified (keyid <kid>)`,
    `${pad}SCA finalised: signature verified (keyid <kid>)`,
    `${pad}ACTC -> ACCC: signature verified (keyid <kid>)`,
    `${pad}-> 3 notifications, each signed by the published key`,
    `${n(7)} GET /psd2/v1/notifications -> 200  3 listed: ACCC delivered at attempt 1, finalised delivered at attempt 1, started delivered at attempt 1`,
  ];
}

const TEST_DATA_HEADING = 'test data: the sandbox app, and the accounts to pay from and to';

test('every flow against a sandbox started in the process: each step, exit 0', async () => {
  const ran = await demo(['--flow', 'all']);
  assert.deepEqual([ran.code, ran.stderr], [0, '']);
  assert.deepEqual(transcript(ran.stdout), [
    'psd2-gateway demo: redirect, decoupled, basket, ais, notified against http://localhost:<port> (a sandbox started here, in memory)',
    '',
    TEST_DATA_HEADING,
    '[ 1/39] GET /sandbox/test-data -> 200  <n> PSUs, app <app>',
    '',
    ...redirectSteps(2, 39),
    '',
    'decoupled: a domestic payment, authorized in the e-ID app, polled sleep_time apart',
    `[ 8/39] ${PIS_TOKEN}`,
    `[ 9/39] ${INITIATED}`,
    '[10/39] POST /decoupled/eid/initAuthorization/2.0 -> 200  sleep_time 2000, auto_start_token',
    '[11/39] polling the token link until the PSU is done',
    '        waiting sleep_time 2000 ms',
    '        poll 1: POST /decoupled/eid/token/2.0 -> 200 COMPLETE',
    '        -> COMPLETE, token_type Bearer, expires_in 900',
    `[12/39] ${EXECUTED}`,
    `[13/39] ${STATUS}`,
    '',
    'basket: two payments initiated together, authorized once, executed together',
    `[14/39] ${PIS_TOKEN}`,
    '[15/39] POST /psd2/se/v2/payments/private/signing-basket -> 200  signingBaskedId <id>, payments rent, power',
    `[16/39] ${AUTHORIZED}`,
    `[17/39] ${PSU_TOKEN}`,
    '[18/39] PUT /psd2/v1/payments/sek-credit-transfer/<id> -> 200  signingBasketId <id>, transactionStatus ACSC',
    '[19/39] GET /psd2/v1/payments/handelsbanken-domestic-credit-transfer/<id>/status -> 200  rent: transactionStatus ACCC',
    '[20/39] GET /psd2/v1/payments/sek-credit-transfer/<id>/status -> 200  power: transactionStatus ACSC',
    '',
    'ais: a consent, its authorization, the accounts, balances and transactions',
    '[21/39] POST /oauth2/token/1.0 -> 200  scope AIS, token_type Bearer, expires_in 86400',
    '[22/39] POST /psd2/v1/consents -> 201  consentId <id>, consentStatus received',
    `[23/39] ${AUTHORIZED}`,
    `[24/39] ${PSU_TOKEN}, with a refresh_token`,
    '[25/39] GET /psd2/v1/consents/<id> -> 200  consentStatus valid, validUntil <date>, frequencyPerDay 4',
    '[26/39] GET /psd2/v1/accounts -> 200  2 accounts, 4 balances',
    '[27/39] GET /psd2/v1/accounts/<id> -> 200  accountId <id>, SEK, Allkonto',
    // What the three flows paid from the account: 125.50 twice, 800.00 and 250.00.
    '[28/39] GET /psd2/v1/accounts/<id>/balances -> 200  2 balances: booked 12498699.00 SEK, available 12498699.00 SEK',
    '[29/39] GET /psd2/v1/accounts/<id>/transactions -> 200  <n> transactions in the last 90 days',
    '[30/39] DELETE /psd2/v1/consents/<id> -> 204  consent deleted',
    '[31/39] GET /psd2/v1/consents/<id>/status -> 200  consentStatus terminatedByTpp',
    '',
    ...notifiedSteps(32, 39),
    '',
    'all passed: 5 flows, 39 steps in <s> s',
  ]);
});

describe('against a running gateway (--base-url)', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(() => gateway.close());

  test('one flow, with the app given', async () => {
    const { clientId, redirectUri } = gateway.sandboxApp;
    const ran = await demo([
      '--base-url',
      gateway.url,
      '--flow',
      'redirect',
      '--client-id',
      clientId,
      '--redirect-uri',
      redirectUri,
    ]);
    assert.deepEqual([ran.code, ran.stderr], [0, '']);
    assert.deepEqual(transcript(ran.stdout), [
      'psd2-gateway demo: redirect against http://127.0.0.1:<port>',
      '',
      TEST_DATA_HEADING,
      '[1/7] GET /sandbox/test-data -> 200  <n> PSUs, app <app>',
      '',
      ...redirectSteps(2, 7),
      '',
      'all passed: 1 flow, 7 steps in <s> s',
    ]);
  });

  test('without the app: the one the test data names, else a usage error asking for it', async () => {
    const data = (await (await fetch(`${gateway.url}/sandbox/test-data`)).json()) as { app?: unknown };
    const ran = await demo(['--base-url', gateway.url, '--flow', 'redirect']);
    if (data.app !== undefined) {
      assert.deepEqual([ran.code, ran.stderr], [0, '']);
      assert.deepEqual(transcript(ran.stdout).slice(-1), ['all passed: 1 flow, 7 steps in <s> s']);
    } else {
      assert.equal(ran.code, 2);
      assert.equal(
        ran.stderr,
        `psd2-gateway demo: ${gateway.url}/sandbox/test-data names no sandbox app: give --client-id and --redirect-uri (psd2-gateway demo --help)\n`,
      );
    }
  });
});

describe('failures: exit 1 and one line naming the step', () => {
  const app = ['--client-id', 'a'.repeat(32), '--redirect-uri', 'https://tpp.example/cb'];

  test('a gateway that answers 500 to the token request', async () => {
    // Test data good enough to start the flow; every other call fails as a broken gateway would.
    const testData = {
      scenarios: [],
      psus: [
        { psuId: '191212121212', name: 'Tolvan', type: 'private', accounts: [{ bban: '6000123456789' }] },
        { psuId: '198112289874', name: 'Agda', type: 'private', accounts: [{ bban: '6789555555550' }] },
      ],
    };
    const broken = {
      httpCode: '500',
      httpMessage: 'Internal Server Error',
      moreInformation: 'correlation id 42',
    };
    const server = createServer((request, response) => {
      const ok = request.url === '/sandbox/test-data';
      response.writeHead(ok ? 200 : 500, { 'content-type': 'application/json' });
      response.end(JSON.stringify(ok ? testData : broken));
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const ran = await demo(['--base-url', url, '--flow', 'redirect', ...app]);
      assert.equal(ran.code, 1);
      assert.deepEqual(transcript(ran.stdout).slice(-1), [
        '[2/7] POST /oauth2/token/1.0 -> 500  expected 200',
      ]);
      assert.equal(
        ran.stderr,
        `psd2-gateway demo: step 2/7 failed: POST /oauth2/token/1.0 answered 500: ${JSON.stringify(broken)}\n`,
      );
    } finally {
      server.close();
    }
  });

  test('a closed port', async () => {
    const port = await refusedPort();
    const ran = await demo(['--base-url', `http://127.0.0.1:${port}`, '--flow', 'ais', ...app]);
    assert.equal(ran.code, 1);
    assert.equal(
      ran.stderr,
      `psd2-gateway demo: step 1/12 failed: GET http://127.0.0.1:${port}/sandbox/test-data failed: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  });
});

describe('usage', () => {
  test('--help prints the usage and starts nothing', async () => {
    const ran = await demo(['--help']);
    assert.deepEqual(ran, { code: 0, stdout: `${USAGE}\n`, stderr: '' });
  });

  test('a bad option is one line and exit 2', async () => {
    const cases: [string[], string][] = [
      [['--bogus'], 'unknown option --bogus'],
      [['--flow', 'sideways'], '--flow must be one of redirect, decoupled, basket, ais, notified, all'],
      [['--base-url', 'localhost:3000'], '--base-url must be an http:// or https:// URL'],
      [['--client-id', 'x'], '--client-id and --redirect-uri go together'],
    ];
    for (const [args, message] of cases) {
      const ran = await demo(args);
      assert.deepEqual(
        ran,
        { code: 2, stdout: '', stderr: `psd2-gateway demo: ${message} (psd2-gateway demo --help)\n` },
        args.join(' '),
      );
    }
  });
});
