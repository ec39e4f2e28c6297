// psd2-gateway check: our sandbox passes every check in every format (on PGlite, and on PostgreSQL when
// TEST_DATABASE_URL is set); a proxy in front of it that breaks the contract in three ways makes exactly
// those checks fail, with their contract rows, and the checks that needed them skip; usage mistakes exit 2.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CHECKS } from '@psd2-gateway/check/checks';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';

const CLI = fileURLToPath(new URL('../../src/cli/index.ts', import.meta.url));
const RUN_LIMIT_MS = 120_000;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI in a process of its own (the gateway under test answers in this one: never spawnSync). */
function cli(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    // Decoded as streams: a character split between two chunks stays whole.
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function checkArgs(baseUrl: string, gateway: Gateway, otherClientId: string, format: string): string[] {
  return [
    'check',
    '--base-url',
    baseUrl,
    '--client-id',
    gateway.sandboxApp.clientId,
    '--redirect-uri',
    gateway.sandboxApp.redirectUri,
    '--other-client-id',
    otherClientId,
    '--format',
    format,
  ];
}

interface JsonResult {
  readonly id: string;
  readonly ref: string;
  readonly result: string;
  readonly expected?: string;
  readonly actual?: string;
  readonly reason?: string;
}

interface JsonReport {
  readonly checks: JsonResult[];
  readonly summary: { total: number; passed: number; failed: number; skipped: number; ms: number };
}

/** Elements nest and close, attribute values hold no raw markup: well-formed enough for a CI's parser. */
function assertWellFormed(xml: string): void {
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/);
  const open: string[] = [];
  const tags = xml
    .replace(/^<\?xml[^>]*\?>/, '')
    .matchAll(/<(\/?)([A-Za-z]+)((?:\s+[a-z]+="[^"<]*")*)\s*(\/?)>/g);
  let consumed = 0;
  for (const tag of tags) {
    const [, closing, name, , selfClosing] = tag;
    if (closing === '/') assert.equal(open.pop(), name, `</${name}> closes what it did not open`);
    else if (selfClosing !== '/') open.push(name!);
    consumed += tag[0].length;
  }
  assert.deepEqual(open, [], 'every element is closed');
  assert.notEqual(consumed, 0, 'the document has elements');
  // Text between tags: entities only, no stray markup.
  const text = xml.replace(/<[^>]*>/g, '');
  assert.doesNotMatch(text, /&(?!amp;|lt;|gt;|quot;|apos;)/);
}

function count(xml: string, pattern: RegExp): number {
  return [...xml.matchAll(pattern)].length;
}

for (const backend of backends()) {
  describe(`check against our sandbox on ${backend}`, () => {
    let gateway: Gateway;
    let otherClientId: string;
    before(async () => {
      gateway = await startGateway({ backend });
      otherClientId = (await gateway.addApp('A second app')).clientId;
    });
    after(() => gateway.close());

    test('json: every check passes', async () => {
      const run = await cli(checkArgs(gateway.url, gateway, otherClientId, 'json'));
      assert.equal(run.stderr, '');
      const report = JSON.parse(run.stdout) as JsonReport;
      const failures = report.checks.filter((check) => check.result !== 'pass');
      assert.deepEqual(failures, []);
      const { ms: _ms, ...counts } = report.summary;
      assert.deepEqual(counts, { total: CHECKS.length, passed: CHECKS.length, failed: 0, skipped: 0 });
      assert.deepEqual(
        report.checks.map((check) => check.id),
        CHECKS.map((check) => check.id),
      );
      assert.equal(run.code, 0);
    });

    test('table: aligned rows, every one PASS, and the summary line', async () => {
      const run = await cli(checkArgs(gateway.url, gateway, otherClientId, 'table'));
      assert.equal(run.code, 0, run.stdout);
      const lines = run.stdout.trimEnd().split('\n');
      assert.equal(lines.at(-1), `${CHECKS.length} checks: ${CHECKS.length} passed, 0 failed, 0 skipped`);
      assert.equal(lines.at(-2), '');
      const rows = lines.slice(0, -2);
      assert.match(rows[0]!, /^RESULT {2}CHECK {2,}CONTRACT {2,}DEVIATION$/);
      assert.equal(rows.length, CHECKS.length + 1);
      const contractAt = rows[0]!.indexOf('CONTRACT');
      CHECKS.forEach((check, index) => {
        const row = rows[index + 1]!;
        assert.equal(row.slice(0, 8), 'PASS    ');
        assert.equal(row.slice(8, contractAt).trimEnd(), check.id);
        assert.equal(row.slice(contractAt), check.ref);
      });
    });

    test('junit: well-formed, one passing testcase per check', async () => {
      const run = await cli(checkArgs(gateway.url, gateway, otherClientId, 'junit'));
      assert.equal(run.code, 0, run.stdout);
      assertWellFormed(run.stdout);
      assert.match(
        run.stdout,
        new RegExp(`<testsuite name="[^"]+" tests="${CHECKS.length}" failures="0" errors="0" skipped="0"`),
      );
      assert.equal(count(run.stdout, /<testcase /g), CHECKS.length);
      assert.equal(count(run.stdout, /<failure /g) + count(run.stdout, /<skipped /g), 0);
    });
  });
}

const ATTACKER = 'https://attacker.example/callback';
/** Where the proxy redirects: with the characters XML must escape, which the JUnit output then holds. */
const LEAKED = `${ATTACKER}?code=leaked&state="<x>'"`;

/**
 * Forwards to the sandbox and breaks the contract three ways: execute answers call transactionStatus
 * transactionState; no answer echoes TPP-Transaction-ID; authorize redirects to an unregistered URI.
 */
async function deviatingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const upstream = request(
        target + incoming.url,
        { method: incoming.method, headers: incoming.headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (part: Buffer) => parts.push(part));
          answer.on('end', () => {
            let body = Buffer.concat(parts).toString('utf8');
            let status = answer.statusCode ?? 502;
            const headers: IncomingHttpHeaders = { ...answer.headers };
            delete headers['tpp-transaction-id'];
            delete headers['transfer-encoding'];
            if (incoming.method === 'PUT')
              body = body.replaceAll('"transactionStatus"', '"transactionState"');
            const query = new URL(incoming.url ?? '/', 'http://proxy').searchParams;
            if (incoming.url?.startsWith('/oauth2/authorize/1.0') && query.get('redirect_uri') === ATTACKER) {
              status = 302;
              headers.location = LEAKED;
              body = '';
            }
            headers['content-length'] = String(Buffer.byteLength(body));
            outgoing.writeHead(status, headers);
            outgoing.end(body);
          });
        },
      );
      upstream.on('error', () => outgoing.writeHead(502).end());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('check against a deviating endpoint', () => {
  let gateway: Gateway;
  let proxy: Awaited<ReturnType<typeof deviatingProxy>>;
  let otherClientId: string;
  before(async () => {
    gateway = await startGateway();
    otherClientId = (await gateway.addApp('A second app')).clientId;
    proxy = await deviatingProxy(gateway.url);
  });
  after(async () => {
    await proxy.close();
    await gateway.close();
  });

  const refOf = (id: string) => CHECKS.find((check) => check.id === id)!.ref;
  const renamed = (idField: string) => ({
    expected: 'transactionStatus: one of ACCC, ACCP, ACSC',
    actual: `transactionStatus: missing (fields: ${idField}, transactionState)`,
  });
  const noEcho = { expected: 'TPP-Transaction-ID echoed as sent', actual: 'TPP-Transaction-ID: missing' };

  test('json: exactly the broken rows fail, with their contract rows; what needed them skips; exit 1', async () => {
    const run = await cli(checkArgs(proxy.url, gateway, otherClientId, 'json'));
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as JsonReport;
    const failed = report.checks
      .filter((check) => check.result === 'fail')
      .map(({ id, ref, expected, actual }) => ({ id, ref, expected, actual }));
    assert.deepEqual(failed, [
      { id: 'headers.echo', ref: refOf('headers.echo'), ...noEcho },
      { id: 'headers.echo.error', ref: refOf('headers.echo.error'), ...noEcho },
      {
        id: 'authorize.unregistered-redirect-uri',
        ref: refOf('authorize.unregistered-redirect-uri'),
        expected: 'no redirect',
        actual: `302 to ${LEAKED}`,
      },
      { id: 'execute.psu-token', ref: refOf('execute.psu-token'), ...renamed('paymentId') },
      { id: 'decoupled.execute', ref: refOf('decoupled.execute'), ...renamed('paymentId') },
      { id: 'basket.execute', ref: refOf('basket.execute'), ...renamed('signingBasketId') },
    ]);
    assert.match(refOf('execute.psu-token'), /^spec row 12 "200: paymentId \.\.\. and transactionStatus"/);
    assert.match(
      refOf('headers.echo'),
      /^API-NOTES Headers "Every response echoes TPP-Request-ID and TPP-Transaction-ID"/,
    );
    const skipped = report.checks
      .filter((check) => check.result === 'skip')
      .map(({ id, reason }) => ({ id, reason }));
    const because = 'needs executedStatus from execute.psu-token, which failed';
    assert.deepEqual(skipped, [
      { id: 'execute.repeat', reason: because },
      { id: 'status.after-execution', reason: because },
      { id: 'status.psu-token', reason: because },
      { id: 'status.other-banks-spelling', reason: because },
    ]);
    const { ms: _ms, ...counts } = report.summary;
    assert.deepEqual(counts, { total: CHECKS.length, passed: CHECKS.length - 10, failed: 6, skipped: 4 });
  });

  test('table and junit say the same', async () => {
    const table = await cli(checkArgs(proxy.url, gateway, otherClientId, 'table'));
    assert.equal(table.code, 1);
    // The rows that are not PASS, cut at the header's columns: result and check, contract, deviation.
    const [header, ...lines] = table.stdout.split('\n');
    const contractAt = header!.indexOf('CONTRACT');
    const deviationAt = header!.indexOf('DEVIATION');
    const rows = lines
      .filter((line) => /^(FAIL|SKIP) /.test(line))
      .map((line) => [
        line.slice(0, contractAt).trimEnd(),
        line.slice(contractAt, deviationAt).trimEnd(),
        line.slice(deviationAt),
      ]);
    const fail = (id: string, deviation: { expected: string; actual: string }) => [
      `FAIL    ${id}`,
      refOf(id),
      `expected ${deviation.expected}; got ${deviation.actual}`,
    ];
    const skip = (id: string) => [
      `SKIP    ${id}`,
      refOf(id),
      'needs executedStatus from execute.psu-token, which failed',
    ];
    assert.deepEqual(rows, [
      fail('headers.echo', noEcho),
      fail('headers.echo.error', noEcho),
      fail('authorize.unregistered-redirect-uri', {
        expected: 'no redirect',
        actual: `302 to ${LEAKED}`,
      }),
      fail('execute.psu-token', renamed('paymentId')),
      skip('execute.repeat'),
      skip('status.after-execution'),
      skip('status.psu-token'),
      skip('status.other-banks-spelling'),
      fail('decoupled.execute', renamed('paymentId')),
      fail('basket.execute', renamed('signingBasketId')),
    ]);
    assert.match(
      table.stdout,
      new RegExp(`\\n${CHECKS.length} checks: ${CHECKS.length - 10} passed, 6 failed, 4 skipped\\n$`),
    );

    const junit = await cli(checkArgs(proxy.url, gateway, otherClientId, 'junit'));
    assert.equal(junit.code, 1);
    assertWellFormed(junit.stdout);
    assert.match(
      junit.stdout,
      new RegExp(`<testsuite name="[^"]+" tests="${CHECKS.length}" failures="6" errors="0" skipped="4"`),
    );
    assert.equal(count(junit.stdout, /<failure /g), 6);
    assert.equal(count(junit.stdout, /<skipped /g), 4);
    assert.match(
      junit.stdout,
      /<failure type="deviation" message="expected no redirect; got 302 to https:\/\/attacker\.example\/callback\?code=leaked&amp;state=&quot;&lt;x&gt;&apos;&quot;">/,
    );
  });
});

describe('check against a wrong base URL', () => {
  let gateway: Gateway;
  let otherClientId: string;
  /** A server that refuses every body as the gateway once did a form at a path it did not have. */
  let refusing: { url: string; close(): Promise<void> };
  before(async () => {
    gateway = await startGateway();
    otherClientId = (await gateway.addApp('A second app')).clientId;
    const server = createServer((incoming, outgoing) => {
      incoming.resume().on('end', () => {
        const text = 'Content-Type must be application/json';
        const body = JSON.stringify({
          httpCode: '415',
          httpMessage: 'Unsupported Media Type',
          moreInformation: text,
          tppMessages: [{ category: 'ERROR', code: 'UNSUPPORTED_MEDIA_TYPE', text }],
        });
        outgoing.writeHead(415, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    refusing = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  });
  after(async () => {
    await refusing.close();
    await gateway.close();
  });

  const tokenResult = async (baseUrl: string) => {
    const run = await cli(checkArgs(baseUrl, gateway, otherClientId, 'json'));
    assert.equal(run.code, 1);
    const report = JSON.parse(run.stdout) as JsonReport;
    const { result, expected, actual } = report.checks.find(
      (check) => check.id === 'token.client-credentials',
    )!;
    return { result, expected, actual };
  };

  test("a base path the gateway does not have: the unknown path, with the gateway's hint", async () => {
    assert.deepEqual(await tokenResult(`${gateway.url}/openbanking`), {
      result: 'fail',
      expected: '200',
      actual:
        '404 RESOURCE_UNKNOWN at POST /openbanking/oauth2/token/1.0: There is no endpoint for POST at this path; ' +
        'did you mean POST /oauth2/token/1.0 (this gateway serves its API with no base path)?',
    });
  });

  test('a form refused 415: the path reached another endpoint, not a media type to change', async () => {
    assert.deepEqual(await tokenResult(refusing.url), {
      result: 'fail',
      expected: '200',
      actual:
        '415 UNSUPPORTED_MEDIA_TYPE at POST /oauth2/token/1.0: Content-Type must be application/json (the ' +
        'application/x-www-form-urlencoded body the contract names was refused: the path reached another ' +
        'endpoint; is --base-url right?)',
    });
  });
});

describe('check usage', () => {
  test('--help prints the usage', async () => {
    const run = await cli(['check', '--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^usage: psd2-gateway check --base-url URL --client-id ID --redirect-uri URI/);
    for (const option of [
      '--format table|json|junit',
      '--other-client-id',
      '--debtor-bban',
      '--psu-id',
      '--timeout',
    ]) {
      assert.ok(run.stdout.includes(option), option);
    }
  });

  test('without --base-url: one line on stderr, exit 2', async () => {
    const run = await cli(['check', '--client-id', 'x', '--redirect-uri', 'https://tpp.example/cb']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'psd2-gateway check: --base-url is required (psd2-gateway check --help)\n');
  });

  test('a bad --format or a base URL that is no URL: exit 2', async () => {
    const base = ['check', '--client-id', 'x', '--redirect-uri', 'https://tpp.example/cb'];
    const format = await cli([...base, '--base-url', 'http://127.0.0.1:1', '--format', 'xml']);
    assert.deepEqual(
      [format.code, format.stderr],
      [2, 'psd2-gateway check: --format must be one of table, json, junit (psd2-gateway check --help)\n'],
    );
    const url = await cli([...base, '--base-url', 'localhost:3000']);
    assert.deepEqual(
      [url.code, url.stderr],
      [
        2,
        'psd2-gateway check: --base-url must be an absolute http or https URL (psd2-gateway check --help)\n',
      ],
    );
  });
});
