// Where the rates come from: a file or an address (a loopback HTTP server here), read at creation, where
// a bad source stops the start with a message naming FX_RATES, the source and the fault; then read again
// on a schedule, where a failure keeps the last good rates and is reported. FX_RATES=none refuses every
// cross-currency quote.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type LoadedRatesOptions,
  type LoadedRatesState,
  loadedRates,
  noRates,
} from '../../src/adapters/fx-rates/fx-rates.ts';
import { createCa, issueServerCertificate } from '../../src/certificates/issue.ts';

const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;
const HOUR = 3_600_000;
/** How long a test waits for a refresh that runs every 20 ms. */
const BOUND_MS = 2_000;

/** An ECB file of one day with the given rates per euro. */
function ecb(date: string, rates: Record<string, string>): string {
  const cubes = Object.entries(rates)
    .map(([currency, rate]) => `<Cube currency='${currency}' rate='${rate}'/>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>
  <Cube><Cube time='${date}'>${cubes}</Cube></Cube>
</gesmes:Envelope>`;
}

/** Replaces a file at once, as an operator's `mv` does: a refresh never reads it half written. */
async function replace(path: string, text: string): Promise<void> {
  await writeFile(`${path}.new`, text);
  await rename(`${path}.new`, path);
}

/** The argument of the callback's next call, or a failure after `ms`. */
function nextCall<T>(): { callback: (value: T) => void; next(ms?: number): Promise<T> } {
  let waiting: ((value: T) => void) | undefined;
  return {
    callback: (value) => waiting?.(value),
    next: (ms = BOUND_MS) =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no call within ${ms} ms`)), ms);
        waiting = (value) => {
          clearTimeout(timer);
          waiting = undefined;
          resolve(value);
        };
      }),
  };
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fx-rates-'));
});
after(() => rm(dir, { recursive: true, force: true }));

describe('a file', () => {
  test('read again on the schedule: the new rates are quoted', async () => {
    const path = join(dir, 'changing.xml');
    await writeFile(path, ecb('2024-05-16', { SEK: '11.6200', USD: '1.0855' }));
    const refreshed = nextCall<LoadedRatesState>();
    const rates = await loadedRates({
      source: { kind: 'file', path },
      refreshMs: 20,
      clock: () => new Date('2024-05-17T15:00:00Z'),
      onRefresh: refreshed.callback,
    });
    try {
      assert.equal(rates.quote('SEK', 'USD', '2024-05-17').exchangeRate, '10.704744');
      await replace(path, ecb('2024-05-17', { SEK: '11.6385', USD: '1.0866' }));
      let state = await refreshed.next();
      // A refresh may have read the old file just before it changed.
      if (state.lastDay !== '2024-05-17') state = await refreshed.next();
      assert.deepEqual(state, {
        firstDay: '2024-05-17',
        lastDay: '2024-05-17',
        loadedAt: new Date('2024-05-17T15:00:00Z'),
      });
      assert.deepEqual(rates.quote('SEK', 'USD', '2024-05-17'), {
        sourceCurrency: 'SEK',
        targetCurrency: 'USD',
        exchangeRate: '10.710933',
        quotationDate: '2024-05-17',
      });
    } finally {
      rates.close();
    }
  });

  test('a refresh that fails keeps the last good rates and is reported, not thrown', async () => {
    const path = join(dir, 'breaking.xml');
    await writeFile(path, ecb('2024-05-17', { SEK: '11.6385', USD: '1.0866' }));
    const failed = nextCall<Error>();
    const rates = await loadedRates({
      source: { kind: 'file', path },
      refreshMs: 20,
      onRefreshError: (error) => {
        failed.callback(error);
        // A listener that throws does not reach the process either.
        throw new Error('the listener failed');
      },
    });
    try {
      await replace(path, ecb('2024-05-20', { SEK: '11.6000', USD: 'n/a' }));
      const error = await failed.next();
      assert.equal(
        error.message,
        `FX_RATES ${path} lists on 2024-05-20 a rate for USD that is not a positive number: "n/a"`,
      );
      await rm(path);
      assert.equal(
        (await failed.next()).message,
        `FX_RATES ${path} cannot be read: ENOENT: no such file or directory, open '${path}'`,
      );
      assert.deepEqual(rates.quote('SEK', 'USD', '2024-05-20'), {
        sourceCurrency: 'SEK',
        targetCurrency: 'USD',
        exchangeRate: '10.710933',
        quotationDate: '2024-05-17',
      });
      assert.equal(rates.state().lastDay, '2024-05-17');
    } finally {
      rates.close();
    }
  });

  test('closed, it reads no more', async () => {
    const path = join(dir, 'closed.xml');
    await writeFile(path, ecb('2024-05-17', { SEK: '11.6385' }));
    const refreshed = nextCall<LoadedRatesState>();
    const rates = await loadedRates({
      source: { kind: 'file', path },
      refreshMs: 20,
      onRefresh: refreshed.callback,
    });
    rates.close();
    await replace(path, ecb('2024-05-20', { SEK: '11.6000' }));
    // Ten times the schedule.
    await assert.rejects(refreshed.next(200), { message: 'no call within 200 ms' });
    assert.equal(rates.state().lastDay, '2024-05-17');
  });
});

describe('a source that is not one stops the start, saying why', () => {
  const bad: [string, string, string][] = [
    ['empty.xml', '', 'is not the ECB reference-rate XML: not well-formed (line 1: Start tag expected.)'],
    [
      'ca.pem',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      "is not the ECB reference-rate XML: not well-formed (line 1: char '-' is not expected.)",
    ],
    [
      'other.xml',
      '<rates><rate currency="USD" value="1.08"/></rates>',
      'is not the ECB reference-rate XML (gesmes:Envelope > Cube > Cube time > Cube currency rate)',
    ],
    [
      'no-days.xml',
      '<gesmes:Envelope xmlns:gesmes="g"><Cube></Cube></gesmes:Envelope>',
      'lists no rates (no <Cube time="…"> day)',
    ],
    ['empty-day.xml', ecb('2024-05-17', {}), 'lists no rates on 2024-05-17'],
    [
      'zero.xml',
      ecb('2024-05-17', { USD: '0.0000' }),
      'lists on 2024-05-17 a rate for USD that is not a positive number: "0.0000"',
    ],
    [
      'negative.xml',
      ecb('2024-05-17', { USD: '-1.0866' }),
      'lists on 2024-05-17 a rate for USD that is not a positive number: "-1.0866"',
    ],
    [
      'exponent.xml',
      ecb('2024-05-17', { USD: '1e3' }),
      'lists on 2024-05-17 a rate for USD that is not a positive number: "1e3"',
    ],
    [
      'bad-date.xml',
      ecb('17.05.2024', { USD: '1.0866' }),
      'has a day whose time is not a date (YYYY-MM-DD): "17.05.2024"',
    ],
    [
      'bad-currency.xml',
      ecb('2024-05-17', { usd: '1.0866' }),
      'lists on 2024-05-17 "usd", which is not a currency code other than EUR (the base)',
    ],
    [
      'euro.xml',
      ecb('2024-05-17', { EUR: '1' }),
      'lists on 2024-05-17 "EUR", which is not a currency code other than EUR (the base)',
    ],
    [
      'twice.xml',
      ecb('2024-05-17', { USD: '1.0866' }).replace(
        '</Cube></Cube>',
        "<Cube currency='USD' rate='1.0'/></Cube></Cube>",
      ),
      'lists USD twice on 2024-05-17',
    ],
    [
      'day-twice.xml',
      ecb('2024-05-17', { USD: '1.0866' }).replace(
        '</Cube></Cube>',
        "</Cube><Cube time='2024-05-17'><Cube currency='USD' rate='1.0'/></Cube></Cube>",
      ),
      'lists the day 2024-05-17 twice',
    ],
  ];
  for (const [name, text, problem] of bad) {
    test(`${name}: ${problem}`, async () => {
      const path = join(dir, name);
      await writeFile(path, text);
      await assert.rejects(loadedRates({ source: { kind: 'file', path }, refreshMs: HOUR }), {
        message: `FX_RATES ${path} ${problem}`,
      });
    });
  }

  test('a file that is not there, an address that is not https', async () => {
    const refusals: [LoadedRatesOptions['source'], string][] = [
      [
        { kind: 'file', path: join(dir, 'nowhere.xml') },
        `FX_RATES ${join(dir, 'nowhere.xml')} cannot be read: ENOENT: no such file or directory, open '${join(dir, 'nowhere.xml')}'`,
      ],
      [
        { kind: 'url', url: 'http://rates.example/eurofxref-daily.xml' },
        'FX_RATES http://rates.example/eurofxref-daily.xml must be https (plain http only to this machine)',
      ],
      [
        { kind: 'url', url: 'ftp://127.0.0.1/eurofxref-daily.xml' },
        'FX_RATES ftp://127.0.0.1/eurofxref-daily.xml must be https (plain http only to this machine)',
      ],
      [{ kind: 'url', url: 'rates' }, 'FX_RATES "rates" is not a URL'],
    ];
    for (const [source, message] of refusals) {
      await assert.rejects(loadedRates({ source, refreshMs: HOUR }), { message });
    }
    await assert.rejects(loadedRates({ source: { kind: 'file', path: FIXTURES }, refreshMs: 0 }), {
      name: 'RangeError',
      message: 'FX_RATES_REFRESH_MS 0 is not a whole number of milliseconds',
    });
  });
});

describe('an address (a loopback HTTP server)', () => {
  let server: Server;
  let base: string;
  /** What the server answers next: a status and a body, or no answer at all. */
  let answer: { status: number; body: string } | 'silence';
  const requests: string[] = [];

  before(async () => {
    answer = { status: 200, body: await readFile(join(FIXTURES, 'eurofxref-daily.xml'), 'utf8') };
    server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      if (answer === 'silence') return;
      response.writeHead(answer.status, { 'content-type': 'application/xml' }).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('fetched at start and again on the schedule; a failed fetch keeps the rates', async () => {
    const refreshed = nextCall<LoadedRatesState>();
    const failed = nextCall<Error>();
    const rates = await loadedRates({
      source: { kind: 'url', url: `${base}/stats/eurofxref/eurofxref-daily.xml?key=secret`, timeoutMs: 200 },
      refreshMs: 20,
      onRefresh: refreshed.callback,
      onRefreshError: failed.callback,
    });
    try {
      assert.deepEqual(requests.slice(0, 1), ['GET /stats/eurofxref/eurofxref-daily.xml?key=secret']);
      assert.equal(rates.quote('SEK', 'USD', '2024-05-17').exchangeRate, '10.710933');
      answer = { status: 200, body: ecb('2024-05-20', { SEK: '11.6000', USD: '1.0900' }) };
      let state = await refreshed.next();
      if (state.lastDay !== '2024-05-20') state = await refreshed.next();
      assert.equal(rates.quote('SEK', 'USD', '2024-05-20').exchangeRate, '10.642202');
      // The address in messages leaves out its query (a key, perhaps).
      const where = `FX_RATES ${base}/stats/eurofxref/eurofxref-daily.xml`;
      answer = { status: 503, body: 'maintenance' };
      assert.equal((await failed.next()).message, `${where} cannot be read: answered HTTP 503`);
      answer = 'silence';
      assert.equal((await failed.next()).message, `${where} cannot be read: no answer within 200 ms`);
      answer = { status: 200, body: '<html>maintenance</html>' };
      assert.equal(
        (await failed.next()).message,
        `${where} is not the ECB reference-rate XML (gesmes:Envelope > Cube > Cube time > Cube currency rate)`,
      );
      assert.deepEqual(rates.quote('SEK', 'USD', '2024-05-21'), {
        sourceCurrency: 'SEK',
        targetCurrency: 'USD',
        exchangeRate: '10.642202',
        quotationDate: '2024-05-20',
      });
    } finally {
      rates.close();
    }
  });

  test('an address that does not answer the rates stops the start', async () => {
    answer = { status: 404, body: 'not found' };
    await assert.rejects(
      loadedRates({ source: { kind: 'url', url: `${base}/missing.xml` }, refreshMs: HOUR }),
      {
        message: `FX_RATES ${base}/missing.xml cannot be read: answered HTTP 404`,
      },
    );
  });
});

test('an https address: its issuer trusted by the ca given, not otherwise', async () => {
  const ca = await createCa();
  const certificate = await issueServerCertificate(ca);
  const daily = await readFile(join(FIXTURES, 'eurofxref-daily.xml'), 'utf8');
  const server = createHttpsServer(
    { cert: certificate.certificatePem, key: certificate.keyPem },
    (_, response) => response.writeHead(200, { 'content-type': 'application/xml' }).end(daily),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://localhost:${(server.address() as AddressInfo).port}/eurofxref-daily.xml`;
  try {
    const rates = await loadedRates({ source: { kind: 'url', url, ca: ca.certificatePem }, refreshMs: HOUR });
    rates.close();
    assert.equal(rates.quote('SEK', 'USD', '2024-05-17').exchangeRate, '10.710933');
    // Node 24 adds a hint of its own after the reason ("; if the root CA is installed locally, try ...").
    const literal = url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    await assert.rejects(loadedRates({ source: { kind: 'url', url }, refreshMs: HOUR }), {
      message: new RegExp(`^FX_RATES ${literal} cannot be read: unable to verify the first certificate(;|$)`),
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('FX_RATES=none: a currency against itself is 1, any other quote is refused', () => {
  assert.deepEqual(noRates.quote('SEK', 'SEK', '2024-05-17'), {
    sourceCurrency: 'SEK',
    targetCurrency: 'SEK',
    exchangeRate: '1.000000',
    quotationDate: '2024-05-17',
  });
  assert.throws(() => noRates.quote('SEK', 'USD', '2024-05-17'), {
    name: 'RangeError',
    message: 'no exchange rate for SEK/USD: the gateway has no rate source (FX_RATES=none)',
  });
});
