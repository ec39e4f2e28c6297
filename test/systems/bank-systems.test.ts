// A live gateway started as main starts it, with every one of the bank's systems set by its settings:
// the national e-ID (EID_PROVIDER=bankid, against the relying-party stand-in over mutual TLS), the
// bank's OpenID Connect login (PSU_OIDC_*, against oidc-provider), the core banking system
// (CORE_BANKING_URL, against the stand-in bank) and exchange rates (FX_RATES, an ECB file). A TPP
// onboards over mutual TLS and initiates a payment: the account is looked up at the bank, the decoupled
// authorization is a sign order at the e-ID service showing the payment, and the redirect flow's login
// goes to the provider. Settings a system refuses stop the start with an error that names them.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCa, issueQwac, issueServerCertificate } from '../../src/certificates/issue.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { connectBankSystems } from '../../src/systems.ts';
import { bankSystemSettings } from '../helpers/bank-settings.ts';
import { writeSigningKey } from '../helpers/signing-key.ts';
import { startCapturing } from '../helpers/start.ts';
import { tlsRequest } from '../helpers/tls.ts';
import { type BankIdRp, startBankIdRp } from '../stand-ins/bankid-rp.ts';
import { type CoreBankingStandIn, startCoreBankingStandIn } from '../stand-ins/core-banking.ts';
import { type StandInProvider, startOidcProvider } from '../stand-ins/oidc-provider.ts';

const TOLVAN = '191212121212';
describe("live with the bank's own systems", () => {
  let dir: string;
  let rp: BankIdRp;
  let bank: CoreBankingStandIn;
  let provider: StandInProvider;
  /** Live settings with every system's, as an operator would write them. */
  let env: Record<string, string>;
  let gatewayCa: string;
  let qwac: { certificatePem: string; keyPem: string };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'psd2-systems-'));
    rp = await startBankIdRp();
    bank = await startCoreBankingStandIn();
    provider = await startOidcProvider({ tolvan: { claims: { personal_number: TOLVAN } } });
    const ca = await createCa();
    const server = await issueServerCertificate(ca);
    qwac = await issueQwac(ca, {
      organizationIdentifier: 'PSDSE-FINA-44059',
      organizationName: 'Budget Buddy AB',
      roles: ['PSP_PI'],
    });
    gatewayCa = ca.certificatePem;
    const files: Record<string, string> = {
      'ca.pem': ca.certificatePem,
      'server.pem': server.certificatePem,
      'server.key': server.keyPem,
    };
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
    env = {
      MODE: 'live',
      AUDIT_KEY: 'test-audit-key-0123456789abcdef0123456789',
      NOTIFICATION_SIGNING_KEY: writeSigningKey(dir),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SCHEDULER_INTERVAL_MS: '0',
      SEED_TEST_DATA: 'true',
      DATA_DIR: join(dir, 'db'),
      TLS_CERT: join(dir, 'server.pem'),
      TLS_KEY: join(dir, 'server.key'),
      TLS_CLIENT_CA: join(dir, 'ca.pem'),
      ...(await bankSystemSettings(dir, { rp, bank, provider })),
    };
  });
  after(async () => {
    await provider.close();
    await bank.close();
    await rp.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('each setting connects its system: the bank finds the account, the e-ID signs the payment, the PSU logs in at the provider', async () => {
    const { lines, server } = await startCapturing(loadConfig(env));
    try {
      const connected = lines.find((line) => line.phase === 'systems');
      assert.deepEqual(connected?.systems, {
        eid: rp.url,
        coreBanking: bank.url,
        rates: env.FX_RATES,
        psuLogin: provider.issuer,
      });
      assert.deepEqual(
        lines.filter((line) => (line.level as number) >= 40),
        [],
        'no warning: no simulator',
      );
      const tls = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
        tlsRequest(`${server.url}${path}`, {
          method,
          ca: gatewayCa,
          client: qwac,
          headers: { 'TPP-Request-ID': crypto.randomUUID(), 'TPP-Transaction-ID': 'systems', ...headers },
          ...(body === undefined ? {} : { body }),
        });
      const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
      const json = { 'Content-Type': 'application/json' };

      const enrolled = await tls('POST', '/psd2/v1/third-parties');
      assert.deepEqual(enrolled, { status: 201, body: { clientId: 'SE-FINA-44059' } });
      const admin = await tls(
        'POST',
        '/oauth2/token/1.0',
        form,
        'grant_type=client_credentials&scope=PSD2-ADMIN&client_id=SE-FINA-44059',
      );
      assert.equal(admin.status, 200, JSON.stringify(admin.body));
      const redirectUri = 'https://tpp.example/callback';
      const subscribed = await tls(
        'POST',
        '/psd2/v1/subscriptions',
        {
          ...json,
          'X-Gateway-Client-Id': 'SE-FINA-44059',
          Authorization: `Bearer ${(admin.body as { access_token: string }).access_token}`,
        },
        JSON.stringify({
          app: { name: 'Budget Buddy', description: 'Pays bills', oauthRedirectURI: redirectUri },
          product: { name: 'payments-se-private' },
        }),
      );
      assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
      const app = (subscribed.body as { clientId: string }).clientId;
      const token = await tls(
        'POST',
        '/oauth2/token/1.0',
        form,
        `grant_type=client_credentials&scope=PIS&client_id=${app}`,
      );
      const appToken = (token.body as { access_token: string }).access_token;

      const lookupsBefore = bank.requests.length;
      const initiated = await tls(
        'POST',
        '/psd2/se/v2/payments/private/single/other-bank-domestic-credit-transfer',
        {
          ...json,
          'X-Gateway-Client-Id': app,
          'PSU-IP-Address': '192.0.2.1',
          Authorization: `Bearer ${appToken}`,
        },
        JSON.stringify({
          debtorAccount: { value: '6000123456789', accountType: 'BBAN' },
          creditorAccount: { value: '50001234501', accountType: 'BBAN' },
          instructedAmount: { currency: 'SEK', amount: '100.00' },
          creditor: { name: 'Sven Svensson' },
        }),
      );
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const paymentId = (initiated.body as { paymentId: string }).paymentId;
      assert.deepEqual(
        bank.requests.slice(lookupsBefore).map(({ operation, method }) => ({ operation, method })),
        [{ operation: 'lookUpAccount', method: 'POST' }],
        'the debtor account is the bank’s',
      );

      // Decoupled: a sign order for the PSU at the e-ID service, showing the payment.
      const init = await tls(
        'POST',
        '/decoupled/eid/initAuthorization/2.0',
        json,
        JSON.stringify({
          client_id: app,
          scope: `PIS:${paymentId}`,
          psu_client_ip: '192.0.2.1',
          bisa_same_device: true,
        }),
      );
      assert.equal(init.status, 200, JSON.stringify(init.body));
      const sign = rp.requests.at(-1) as { path: string; body: Record<string, unknown> };
      assert.equal(sign.path, '/sign');
      assert.deepEqual(sign.body.requirement, { personalNumber: TOLVAN });
      assert.match(
        Buffer.from(String(sign.body.userVisibleData), 'base64').toString('utf8'),
        /100\.00 SEK.*Sven Svensson/s,
      );
      assert.equal(
        (init.body as { auto_start_token: string }).auto_start_token,
        rp.orderOf(TOLVAN)?.autoStartToken,
      );

      // Redirect: authorize sends the PSU's browser through our start link to the provider.
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: app,
        scope: `PIS:${paymentId}`,
        redirect_uri: redirectUri,
        state: 'tpp-state',
      });
      const authorize = await redirectOf(`${server.url}/oauth2/authorize/1.0?${query}`, gatewayCa);
      assert.equal(authorize.status, 302);
      const startLink = new URL(authorize.location, server.url);
      assert.equal(startLink.pathname, '/psu/oidc/start');
      const toProvider = await redirectOf(startLink.href, gatewayCa);
      assert.equal(toProvider.status, 302);
      const login = new URL(toProvider.location);
      assert.equal(login.origin, provider.issuer);
      assert.deepEqual(
        {
          client_id: login.searchParams.get('client_id'),
          redirect_uri: login.searchParams.get('redirect_uri'),
          response_type: login.searchParams.get('response_type'),
          scope: login.searchParams.get('scope'),
          code_challenge_method: login.searchParams.get('code_challenge_method'),
        },
        {
          client_id: provider.clientId,
          redirect_uri: `${server.url}/psu/oidc/callback`,
          response_type: 'code',
          scope: 'openid',
          code_challenge_method: 'S256',
        },
      );
    } finally {
      await server.close();
    }
  });

  test('a system that refuses its settings stops the start, naming the setting', async () => {
    const refusals: [Record<string, string>, string, RegExp][] = [
      [{ BANKID_CERT: join(dir, 'missing.pem') }, 'BANKID_CERT', /cannot read the file .*missing\.pem/],
      [{ BANKID_CA: join(dir, 'missing-ca.pem') }, 'BANKID_CA', /cannot read the file/],
      [
        { CORE_BANKING_CERT: join(dir, 'missing.pem'), CORE_BANKING_KEY: join(dir, 'bankid.key') },
        'CORE_BANKING_CERT',
        /cannot read the file/,
      ],
      [{ FX_RATES: join(dir, 'ca.pem') }, 'FX_RATES', /ECB|reference rates|rates/i],
      [{ FX_RATES: join(dir, 'nowhere.xml') }, 'FX_RATES', /nowhere\.xml/],
      [{ PSU_OIDC_ISSUER: 'http://127.0.0.1:9/' }, 'PSU_OIDC_ISSUER', /discovery failed/],
    ];
    for (const [change, key, message] of refusals) {
      const config = loadConfig({ ...env, ...change });
      await assert.rejects(
        connectBankSystems(config),
        (error: unknown) => error instanceof ConfigError && error.key === key && message.test(error.message),
        key,
      );
    }
  });
});

/** A GET over TLS without a client certificate, as a PSU's browser sends it: the status and Location. */
function redirectOf(url: string, ca: string): Promise<{ status: number; location: string }> {
  return new Promise((resolve, reject) => {
    request(url, { method: 'GET', ca, agent: false }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, location: String(response.headers.location ?? '') }),
      );
    })
      .on('error', reject)
      .end();
  });
}
