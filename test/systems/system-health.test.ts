// What the operator sees of each system the gateway depends on, with every one of the bank's systems set
// by its settings as main starts them (the e-ID relying-party stand-in, the OpenID provider, the core
// banking stand-in, an ECB rate file) and the database: one start line per system saying whether it
// answered; /healthz and /readyz naming each system and its state, ready while only systems that are
// not required are down (the login, the e-ID), not ready once core banking is down; the per-system
// series in the metrics; and an API call that needs core banking answering 503 with Retry-After.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TppClient } from '../../src/client/tpp-client.ts';
import { loadConfig } from '../../src/config.ts';
import { bankSystemSettings } from '../helpers/bank-settings.ts';
import { domestic } from '../helpers/payments.ts';
import { startCapturing } from '../helpers/start.ts';
import { type BankIdRp, startBankIdRp } from '../stand-ins/bankid-rp.ts';
import { type CoreBankingStandIn, startCoreBankingStandIn } from '../stand-ins/core-banking.ts';
import { type StandInProvider, startOidcProvider } from '../stand-ins/oidc-provider.ts';

const unavailableText = (id: string | null) =>
  `The bank's core banking system cannot answer now; try again in 5 seconds (correlation id ${id})`;

interface SystemHealth {
  state: 'up' | 'down';
  checkedAt: string;
  latencyMs: number;
  required: boolean;
}

describe('the systems the gateway depends on, as the operator sees them', () => {
  let dir: string;
  let rp: BankIdRp;
  let bank: CoreBankingStandIn;
  let provider: StandInProvider;
  let env: Record<string, string>;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'psd2-health-'));
    rp = await startBankIdRp();
    bank = await startCoreBankingStandIn();
    provider = await startOidcProvider({ tolvan: { claims: { personal_number: '191212121212' } } });
    env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SCHEDULER_INTERVAL_MS: '0',
      CORE_BANKING_TIMEOUT_MS: '500',
      ...(await bankSystemSettings(dir, { rp, bank, provider })),
    };
  });
  after(async () => {
    await provider.close().catch(() => undefined);
    await bank.close().catch(() => undefined);
    await rp.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the start says which systems answered; health, readiness and metrics follow each one going down', async () => {
    const { lines, server } = await startCapturing(loadConfig(env));
    try {
      const started = lines.filter((line) => typeof line.system === 'string');
      assert.deepEqual(
        started.map(({ level, system, state, where, required }) => ({
          level,
          system,
          state,
          where,
          required,
        })),
        [
          { level: 30, system: 'database', state: 'up', where: 'pglite', required: true },
          { level: 30, system: 'eid', state: 'up', where: rp.url, required: false },
          { level: 30, system: 'coreBanking', state: 'up', where: bank.url, required: true },
          { level: 30, system: 'rates', state: 'up', where: env.FX_RATES, required: false },
          { level: 30, system: 'psuLogin', state: 'up', where: provider.issuer, required: false },
        ],
      );
      for (const line of started) {
        assert.equal(typeof line.latencyMs, 'number', String(line.system));
        assert.equal(
          line.msg,
          `${line.system} answered in ${Math.round(line.latencyMs as number)} ms (${line.where})`,
        );
      }

      /** The health answer, its checkedAt and latencyMs checked apart (they vary), the rest whole. */
      const health = async (path: string) => {
        const response = await fetch(`${server.url}${path}`);
        const body = (await response.json()) as { systems: Record<string, SystemHealth> };
        const states: Record<string, { state: string; required: boolean }> = {};
        for (const [system, { state, checkedAt, latencyMs, required }] of Object.entries(body.systems)) {
          assert.ok(
            Math.abs(Date.parse(checkedAt) - Date.now()) < 10_000,
            `${system} checked at ${checkedAt}`,
          );
          assert.ok(latencyMs >= 0 && latencyMs <= 2_100, `${system} took ${latencyMs} ms`);
          states[system] = { state, required };
        }
        return { status: response.status, body: { ...body, systems: states } };
      };
      const up = (required = false) => ({ state: 'up', required });
      const down = (required = false) => ({ state: 'down', required });
      const all = { database: up(true), eid: up(), coreBanking: up(true), rates: up(), psuLogin: up() };
      assert.deepEqual(await health('/healthz'), {
        status: 200,
        body: { status: 'ok', mode: 'sandbox', systems: all },
      });

      // The login and the e-ID away: reported, and the gateway stays ready (payments still work).
      await provider.close();
      rp.failNext('/collect', 1, 'internalError');
      const degraded = { ...all, eid: down(), psuLogin: down() };
      assert.deepEqual(await health('/readyz'), {
        status: 200,
        body: { status: 'ok', mode: 'sandbox', systems: degraded },
      });

      // Core banking away: not ready, and a call that needs it is a 503 with Retry-After.
      await bank.close();
      assert.deepEqual(await health('/readyz'), {
        status: 503,
        body: {
          status: 'unavailable',
          mode: 'sandbox',
          systems: { ...degraded, eid: up(), coreBanking: down(true) },
        },
      });
      const app = lines.find((line) => line.phase === 'sandbox app')!;
      const client = new TppClient(server.url, app.clientId as string, app.redirectUri as string);
      const initiated = await client.initiate(await client.clientCredentialsToken(), {
        path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        body: domestic(),
      });
      assert.deepEqual(
        [initiated.status, initiated.headers.get('retry-after'), initiated.body],
        [
          503,
          '5',
          {
            httpCode: '503',
            httpMessage: 'Service Unavailable',
            moreInformation: unavailableText(initiated.headers.get('x-correlation-id')),
            tppMessages: [
              {
                category: 'ERROR',
                code: 'SERVICE_UNAVAILABLE',
                text: unavailableText(initiated.headers.get('x-correlation-id')),
              },
            ],
          },
        ],
      );

      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      const value = (series: string) => {
        const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${series} `));
        return line === undefined ? undefined : Number(line.slice(series.length + 1));
      };
      const systems = ['database', 'eid', 'coreBanking', 'rates', 'psuLogin'];
      assert.deepEqual(
        systems.map((system) => [system, value(`psd2_system_up{system="${system}"}`)]),
        [
          ['database', 1],
          ['eid', 1],
          ['coreBanking', 0],
          ['rates', 1],
          ['psuLogin', 0],
        ],
      );
      for (const system of systems) {
        const calls = value(`psd2_system_call_duration_seconds_count{system="${system}"}`);
        assert.ok(calls !== undefined && calls >= 3, `${system}: ${calls} calls timed`);
      }
      assert.deepEqual(
        systems.map((system) => [system, value(`psd2_system_errors_total{system="${system}"}`)]),
        [
          ['database', undefined],
          ['eid', 1],
          // The readiness probe and the initiation's look-up of the debtor account.
          ['coreBanking', 2],
          ['rates', undefined],
          ['psuLogin', 2],
        ],
      );
    } finally {
      await server.close();
    }
  });
});
