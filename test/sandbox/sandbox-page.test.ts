// The sandbox page and its data: GET /sandbox/test-data lists everything seeded (asserted against the
// seed's constants); GET /sandbox is HTML with strict security headers that shows all of it, every
// value escaped; and the page's commands run as shown, in order, with bash, curl and jq against a
// gateway on loopback, ending in executed payments and listed accounts. On PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { escapeHtml } from '../../src/api/psu/html.ts';
import { renderSandboxPage } from '../../src/api/sandbox/sandbox-page.ts';
import type { SandboxTestData } from '../../src/api/sandbox/schemas.ts';
import { shellQuote } from '../../src/api/sandbox/walkthrough/commands.ts';
import { walkthrough } from '../../src/api/sandbox/walkthrough/walkthrough.ts';
import { configWith } from '../../src/config.ts';
import type { App } from '../../src/domain/apps.ts';
import { SCENARIO_TABLE } from '../../src/sandbox/scenarios.ts';
import { ensureSandboxApp, TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import {
  EXAMPLE_CREDITORS,
  TEST_ACCOUNTS,
  TEST_CARD_ACCOUNTS,
  TEST_CARDS,
  TEST_PSUS,
} from '../../src/sandbox/test-data.ts';
import { listTestData } from '../../src/sandbox/test-data-listing.ts';
import { backends, type Gateway, sibling, startGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';

/** A redirect URI that HTML and the shell must both quote: &, <, > and '. */
const REDIRECT_URI = "https://tpp.example/cb?team=a&b=<x>&c='y'";
const TOLVAN = '191212121212';
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const present = <K extends string>(key: K, value: string | null) =>
  (value === null ? {} : { [key]: value }) as Partial<Record<K, string>>;

/** The whole listing, from the seed's constants. */
function expectedTestData(app: App): SandboxTestData {
  const psus = [...TEST_PSUS].sort((a, b) => byId(a.psuId, b.psuId));
  const cardAccounts = psus.flatMap((psu) => TEST_CARD_ACCOUNTS.filter((row) => row.psuId === psu.psuId));
  return {
    app: { clientId: app.clientId, redirectUri: REDIRECT_URI },
    psuPassword: TEST_PSU_PASSWORD,
    sandboxUsers: [
      { name: 'SANDBOX-INDIVIDUAL-SE-1', psuId: '191212121212' },
      { name: 'SANDBOX-INDIVIDUAL-SE-2', psuId: '198112289874' },
      { name: 'SANDBOX-CORPORATE-SE-1', psuId: '197001011234' },
      { name: 'SANDBOX-CORPORATE-SE-2', psuId: '196802022345' },
      { name: 'SANDBOX-INDIVIDUAL-NL-1', psuId: 'nl-1001' },
      { name: 'SANDBOX-INDIVIDUAL-LU-1', psuId: 'lu-2001' },
      { name: 'SANDBOX-INDIVIDUAL-GB-1', psuId: 'gb-3001' },
    ],
    scenarios: [...SCENARIO_TABLE],
    psus: psus.map((psu) => ({
      psuId: psu.psuId,
      name: psu.name,
      type: psu.customerType,
      ...present('corporateId', psu.corporateId),
      accounts: TEST_ACCOUNTS.filter((row) => row.psuId === psu.psuId)
        .sort((a, b) => a.position - b.position)
        .map((row) => ({
          accountId: row.accountId,
          ...present('iban', row.iban),
          ...present('bban', row.bban),
          ...present('clearingNumber', row.clearingNumber),
          currency: row.currency,
          country: row.country,
          name: row.name,
          ownerName: row.ownerName,
        })),
    })),
    cardAccounts: cardAccounts.map((row) => ({
      cardAccountId: row.cardAccountId,
      psuId: row.psuId,
      currency: row.currency,
      product: row.product,
      ownerName: row.ownerName,
      creditLimit: { currency: row.currency, amount: (row.creditLimitMinor / 100).toFixed(2) },
    })),
    cards: [...TEST_CARDS]
      .sort((a, b) => byId(a.cardId, b.cardId))
      .map((card) => ({
        cardId: card.cardId,
        maskedPan: card.maskedPan,
        name: card.name,
        ...present('accountId', card.accountId),
        ...present('cardAccountId', card.cardAccountId),
      })),
    creditors: [
      ['SEB', 'SE', 'BBAN', EXAMPLE_CREDITORS.sebBban, 'other-bank-domestic-credit-transfer'],
      ['Swedbank', 'SE', 'BBAN', EXAMPLE_CREDITORS.swedbankBban, 'other-bank-domestic-credit-transfer'],
      ['Commerzbank', 'DE', 'IBAN', EXAMPLE_CREDITORS.germanIban, 'sepa-credit-transfer'],
      ['La Banque Postale', 'FR', 'IBAN', EXAMPLE_CREDITORS.frenchIban, 'sepa-credit-transfer'],
      ['Barclays', 'GB', 'BBAN', EXAMPLE_CREDITORS.britishOtherBank, 'british-domestic-credit-transfer'],
      ['JPMorgan Chase', 'US', 'BBAN', EXAMPLE_CREDITORS.usAccount, 'cross-currency-credit-transfer'],
    ].map(([bank, country, accountType, account, product]) => ({
      bank: bank!,
      country: country!,
      accountType: accountType as 'IBAN' | 'BBAN',
      account: account!,
      ...(country === 'US' ? { bic: EXAMPLE_CREDITORS.usBic } : {}),
      product: product!,
    })),
  };
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};
const unescapeHtml = (text: string) =>
  text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);

/** The commands as the page shows them: each step's <code>, unescaped. */
function commandsOfPage(page: string): { id: string; command: string }[] {
  return [...page.matchAll(/<code id="cmd-([a-z0-9-]+)">([^<]*)<\/code>/g)].map((match) => ({
    id: match[1]!,
    command: unescapeHtml(match[2]!),
  }));
}

/** What bash, curl and jq the walkthrough needs; the reason to skip when one is missing. */
function missingTools(): string | false {
  for (const [tool, args] of [
    ['bash', ['--version']],
    ['jq', ['--version']],
    ['curl', ['--fail-with-body', '--version']],
  ] as const) {
    if (spawnSync(tool, args).status !== 0) {
      const reason = `sandbox walkthrough run skipped: ${tool === 'curl' ? 'curl >= 7.76 (--fail-with-body)' : tool} is not installed`;
      console.log(`# ${reason}`);
      return reason;
    }
  }
  return false;
}
const toolsMissing = missingTools();

/**
 * Runs the commands in order in one bash (-e, -u, pipefail), each step's output after a marker; in a
 * fresh HOME (no ~/.curlrc) with no proxy; killed after a minute.
 */
async function runInBash(steps: readonly { id: string; command: string }[]) {
  const home = await mkdtemp(join(tmpdir(), 'psd2-walkthrough-'));
  try {
    const script = steps.map((step) => `printf '\\n@@step %s\\n' ${step.id}\n${step.command}\n`).join('');
    await writeFile(join(home, 'walkthrough.sh'), `${script}printf '\\n@@done\\n'\n`);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, CURL_HOME: home, LANG: 'C.UTF-8' };
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'bash',
        ['-euo', 'pipefail', join(home, 'walkthrough.sh')],
        { env, cwd: home, timeout: 60_000, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resolve({
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : null,
            stdout,
            stderr,
          }),
      );
    });
    const outputs = new Map<string, string>();
    for (const block of result.stdout.split('\n@@step ').slice(1)) {
      const [id, ...lines] = block.split('\n');
      outputs.set(id!, lines.join('\n').replace(/\n@@done\n$/, ''));
    }
    return { ...result, outputs, done: result.stdout.endsWith('\n@@done\n') };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * The commands the page shows (asserted to be the walkthrough's, with no placeholder to fill in),
 * run in order; asserted to have run to the end, every step.
 */
async function runPageCommands(gateway: Gateway) {
  const [page, data] = await Promise.all([
    fetch(`${gateway.url}/sandbox`).then((response) => response.text()),
    fetch(`${gateway.url}/sandbox/test-data`).then((response) => response.json() as Promise<SandboxTestData>),
  ]);
  const steps = commandsOfPage(page);
  assert.deepEqual(
    steps,
    walkthrough(gateway.url, data).flatMap((section) =>
      section.steps.map(({ id, command }) => ({ id, command })),
    ),
  );
  assert.ok(steps.length >= 20, `${steps.length} steps`);
  assert.equal(steps[0]!.command.split('\n')[0], `BASE=${shellQuote(gateway.url)}`);
  // No placeholders to fill in (the redirect URI's own <x> aside).
  for (const { command } of steps) {
    assert.doesNotMatch(
      command.replace(shellQuote(REDIRECT_URI), ''),
      /\.\.\.|…|<[a-z_]+>/i,
      'no placeholders',
    );
  }
  const run = await runInBash(steps);
  assert.equal(run.code, 0, `exit ${run.code}\n${run.stderr}\n${run.stdout.slice(-2000)}`);
  assert.ok(run.done, 'the run is done');
  assert.deepEqual(
    [...run.outputs.keys()],
    steps.map((step) => step.id),
  );
  return run;
}

const outputJson = (run: { outputs: Map<string, string> }) => (id: string) =>
  JSON.parse(run.outputs.get(id)!) as Record<string, unknown>;

test('before the sandbox app is seeded the page says so; without the example PSU only the setup is shown', () => {
  const data = expectedTestData({ clientId: 'a'.repeat(32), redirectUri: REDIRECT_URI } as App);
  const { app: _seeded, ...unseeded } = data;
  assert.deepEqual(walkthrough('http://localhost:3000', unseeded), []);
  const page = renderSandboxPage({ baseUrl: 'http://localhost:3000', data: unseeded, sections: [] });
  assert.match(page, /The sandbox app is not seeded yet/);
  assert.doesNotMatch(page, /<code id="cmd-/);
  const withoutPsus = walkthrough('http://localhost:3000', { ...data, psus: [] });
  assert.deepEqual(
    withoutPsus.map((section) => section.steps.map((step) => step.id)),
    [['variables']],
  );
});

for (const backend of backends()) {
  describe(`the sandbox page on ${backend}`, () => {
    let gateway: Gateway;
    before(async () => {
      gateway = await startGateway({ backend, config: { sandboxRedirectUri: REDIRECT_URI } });
    });
    after(() => gateway.close());

    test('GET /sandbox/test-data lists the app, password, PSUs, accounts, cards, creditors and scenarios', async () => {
      const answer = await call(gateway.app, 'GET', '/sandbox/test-data');
      assert.deepEqual(
        { status: answer.status, body: answer.body },
        { status: 200, body: expectedTestData(gateway.sandboxApp) },
      );
    });

    test('GET /sandbox: HTML with strict security headers, showing every value escaped', async () => {
      const answer = await call(gateway.app, 'GET', '/sandbox');
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-type'], 'text/html; charset=utf-8');
      const page = answer.body as string;
      const styles = [...page.matchAll(/<style>([^<]*)<\/style>/g)].map((match) => match[1]!);
      const scripts = [...page.matchAll(/<script>([^<]*)<\/script>/g)].map((match) => match[1]!);
      assert.equal(styles.length, 1);
      assert.equal(scripts.length, 1);
      const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
      assert.deepEqual(
        {
          csp: answer.headers['content-security-policy'],
          frame: answer.headers['x-frame-options'],
          sniff: answer.headers['x-content-type-options'],
          referrer: answer.headers['referrer-policy'],
          cache: answer.headers['cache-control'],
        },
        {
          csp: `default-src 'none'; style-src ${hash(styles[0]!)}; script-src ${hash(scripts[0]!)}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
          frame: 'DENY',
          sniff: 'nosniff',
          referrer: 'no-referrer',
          cache: 'no-store',
        },
      );
      // Nothing else runs or loads: no script files, inline handlers, images, frames or stylesheets.
      assert.doesNotMatch(
        page,
        /<script\s[^>]*src|\son[a-z]+=|<img|<iframe|<link|<object|<embed|javascript:/i,
      );

      const data = expectedTestData(gateway.sandboxApp);
      const shown = [
        'http://localhost:80',
        gateway.sandboxApp.clientId,
        TEST_PSU_PASSWORD,
        ...data.psus.flatMap((psu) => [
          psu.psuId,
          psu.name,
          psu.type,
          ...(psu.corporateId === undefined ? [] : [psu.corporateId]),
          ...psu.accounts.flatMap((account) => [
            account.accountId,
            account.iban,
            account.bban,
            account.clearingNumber,
            account.currency,
            account.name,
          ]),
        ]),
        ...data.cardAccounts.flatMap((row) => [row.cardAccountId, row.product, row.creditLimit.amount]),
        ...data.cards.flatMap((card) => [card.cardId, card.maskedPan, card.name]),
        ...data.creditors.flatMap((creditor) => [creditor.bank, creditor.account, creditor.product]),
        EXAMPLE_CREDITORS.usBic,
        ...data.scenarios.flatMap((row) => [
          row.trigger,
          JSON.stringify(row.when),
          row.outcome,
          JSON.stringify(row.expected),
        ]),
      ].filter((value) => value !== undefined);
      for (const value of shown) assert.ok(page.includes(escapeHtml(value)), `the page shows ${value}`);
      // The redirect URI as text, and inside the setup command quoted for the shell.
      assert.ok(
        page.includes('https://tpp.example/cb?team=a&amp;b=&lt;x&gt;&amp;c=&#39;y&#39;'),
        'the redirect URI, escaped for HTML',
      );
      assert.ok(
        page.includes(
          'REDIRECT_URI=&#39;https://tpp.example/cb?team=a&amp;b=&lt;x&gt;&amp;c=&#39;\\&#39;&#39;y&#39;\\&#39;&#39;&#39;',
        ),
        'the redirect URI, quoted for the shell and escaped for HTML',
      );
      assert.ok(!page.includes('<x>'), 'no raw markup from a value');
    });

    test("the page's commands are the walkthrough's, and run as shown with bash, curl and jq", {
      skip: toolsMissing,
    }, async () => {
      const run = await runPageCommands(gateway);
      const json = outputJson(run);

      const seInitiated = json('initiate-se');
      const initiated = json('initiate-general');
      for (const answer of [seInitiated, initiated]) {
        assert.equal(answer.transactionStatus, 'ACTC');
        assert.match(answer.paymentId as string, /^[0-9a-f-]{36}$/);
      }
      const location = new URL(run.outputs.get('authorize')!.trim());
      assert.equal(`${location.origin}${location.pathname}`, 'https://tpp.example/cb');
      assert.match(location.searchParams.get('code')!, /^[A-Za-z0-9_-]{43}$/);
      // Within the bank: booked at once (ACCC); to another bank after decoupled authorization: ACSC.
      const settled = { paymentId: initiated.paymentId, transactionStatus: 'ACCC' };
      assert.deepEqual(json('execute'), settled);
      assert.deepEqual(json('status'), settled);
      assert.equal(json('decoupled-poll').result, 'COMPLETE');
      const decoupled = { paymentId: json('decoupled-initiate').paymentId, transactionStatus: 'ACSC' };
      assert.deepEqual(json('decoupled-execute'), decoupled);
      assert.deepEqual(json('decoupled-status'), decoupled);

      assert.equal(json('consent').consentStatus, 'received');
      assert.match(json('consent-exchange').refresh_token as string, /^[A-Za-z0-9_-]{43}$/);
      const tolvan = TEST_ACCOUNTS.filter((row) => row.psuId === TOLVAN);
      const accounts = json('accounts-list').accounts as { accountId: string }[];
      assert.deepEqual(
        accounts.map((account) => account.accountId),
        tolvan.map((row) => row.accountId),
      );
      // 250.00 to his savings account and 75.00 to another bank executed; the 100.00 initiated only.
      const balances = json('balances');
      assert.equal(balances.accountId, tolvan[0]!.accountId);
      assert.deepEqual(balances.balances, [
        { amount: { content: '12499675.00', currency: 'SEK' }, balanceType: 'booked' },
        { amount: { content: '12499675.00', currency: 'SEK' }, balanceType: 'available' },
      ]);
      assert.equal((JSON.parse(run.outputs.get('transactions')!) as unknown[]).length, 5);
      const cardAccounts = json('card-accounts').cardAccounts as { accountId: string }[];
      assert.deepEqual(
        cardAccounts.map((row) => row.accountId),
        TEST_CARD_ACCOUNTS.filter((row) => row.psuId === TOLVAN).map((row) => row.cardAccountId),
      );
      assert.deepEqual(json('funds-iban'), { fundsAvailable: true });
      assert.deepEqual(json('funds-card'), { fundsAvailable: true });
      assert.equal(json('reset').reset, true);
    });

    test('under BASE_PATH the commands carry it, and still run', { skip: toolsMissing }, async () => {
      const prefixed = await sibling(gateway, {
        config: { basePath: '/openbanking', sandboxRedirectUri: REDIRECT_URI },
      });
      try {
        assert.ok(prefixed.url.endsWith('/openbanking'), prefixed.url);
        const json = outputJson(await runPageCommands(prefixed));
        assert.equal(json('execute').transactionStatus, 'ACCC');
        assert.equal(json('decoupled-execute').transactionStatus, 'ACSC');
        assert.equal((json('accounts-list').accounts as unknown[]).length, 2);
      } finally {
        await prefixed.close();
      }
    });

    test('the listing names the app SANDBOX_CLIENT_ID names, though an older one was seeded', async () => {
      const newer = await ensureSandboxApp(
        gateway.store.db,
        configWith({ sandboxClientId: 'f'.repeat(32), sandboxRedirectUri: 'https://newer.example/cb' }),
      );
      assert.deepEqual((await listTestData(gateway.store.db, { sandboxClientId: newer.clientId })).app, {
        clientId: newer.clientId,
        redirectUri: 'https://newer.example/cb',
      });
      assert.deepEqual((await listTestData(gateway.store.db)).app, {
        clientId: gateway.sandboxApp.clientId,
        redirectUri: REDIRECT_URI,
      });
    });
  });
}
