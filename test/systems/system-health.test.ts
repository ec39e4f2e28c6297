// What the operator sees of each system the gateway depends on, with every one of the bank's systems set
// by its settings as main starts them (the e-ID relying-party stand-in, the OpenID provider, the core
// banking stand-in, an ECB rate file) and the database: one start line per system saying whether it
// answered; /healthz and /readyz naming each system and its state, ready while only systems that are
// not required are down (the login, the e-ID), not ready once core banking is down; the per-system
// series in the metrics; and an API call that needs core banking answering 503 with Retry-After. The
// health answers, public and unthrottled, ask each system at most once per STATE_MAX_AGE_MS, and see a
// call's failure at once.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TppClient } from '@psd2-gateway/client';
import { DEFAULT_RETRY } from '../../src/adapters/http-core-banking/http-core-banking.ts';
import { loadConfig } from '../../src/config.ts';
import { STATE_MAX_AGE_MS } from '../../src/services/shared/system-health.ts';
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

/** The bank's systems as stand-ins and the settings that connect a gateway to them, per suite. */
function bankSystems() {
  const systems = {} as {
    dir: string;
    rp: BankIdRp;
    bank: CoreBankingStandIn;
    provider: StandInProvider;
    env: Record<string, string>;
  };
  before(async () => {
    systems.dir = await mkdtemp(join(tmpdir(), 'psd2-health-'));
    systems.rp = await startBankIdRp();
    systems.bank = await startCoreBankingStandIn();
    systems.provider = await startOidcProvider({ tolvan: { claims: { personal_number: '191212121212' } } });
    systems.env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SCHEDULER_INTERVAL_MS: '0',
      CORE_BANKING_TIMEOUT_MS: '500',
      ...(await bankSystemSettings(systems.dir, systems)),
    };
  });
  after(async () => {
    // The test may have closed them already.
    await systems.provider.close().catch(() => undefined);
    await systems.bank.close().catch(() => undefined);
    await systems.rp.close();
    await rm(systems.dir, { recursive: true, force: true });
  });
  return systems;
}

describe('the systems the gateway depends on, as the operator sees them', () => {
  const systems = bankSystems();

  test('the start says which systems answered; health, readiness and metrics follow each one going down', async () => {
    const { rp, bank, provider, env } = systems;
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
      // Each state is answered as it is for STATE_MAX_AGE_MS; after that the systems are asked again.
      await sleep(STATE_MAX_AGE_MS + 50);
      const degraded = { ...all, eid: down(), psuLogin: down() };
      assert.deepEqual(await health('/readyz'), {
        status: 200,
        body: { status: 'ok', mode: 'sandbox', systems: degraded },
      });

      // Core banking away: not ready, and a call that needs it is a 503 with Retry-After.
      await bank.close();
      await sleep(STATE_MAX_AGE_MS + 50);
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
      // The start's probe and the two of readiness: the first /healthz answered the start's states.
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

describe('the health answers cost the bank systems one probe per bound, however often they are asked', () => {
  const systems = bankSystems();

  test('sequential health answers within the bound share one probe; a call that fails is seen at once', async () => {
    const { bank, env } = systems;
    const { lines, server } = await startCapturing(loadConfig(env));
    try {
      /** The requests the core banking stand-in has had from the gateway's probe (its own account id). */
      const probes = () => bank.requests.filter((request) => request.path.includes('psd2-gateway-probe'));
      const health = async (path: string) => {
        const response = await fetch(`${server.url}${path}`);
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      // Past the bound of the start's probes: the next answer asks every system again, once.
      await sleep(STATE_MAX_AGE_MS + 50);
      const before = probes().length;
      const asked = performance.now();
      const first = await health('/healthz');
      assert.equal(first.status, 200);
      assert.equal(probes().length, before + 1);
      for (let count = 0; count < 9; count++) {
        // Every answer within the bound is the first one whole: the same states, learnt at the same time.
        assert.deepEqual(await health(count % 2 === 0 ? '/healthz' : '/readyz'), first);
      }
      assert.ok(performance.now() - asked < STATE_MAX_AGE_MS, 'the answers came within the bound');
      assert.equal(probes().length, before + 1, 'ten answers, one probe');

      // After the bound, the next answer asks again.
      await sleep(STATE_MAX_AGE_MS + 50);
      const again = await health('/healthz');
      assert.equal(again.status, 200);
      assert.equal(probes().length, before + 2);
      const systems = (answer: { body: Record<string, unknown> }) =>
        answer.body.systems as Record<string, { state: string; checkedAt: string }>;
      assert.ok(
        systems(again).coreBanking!.checkedAt > systems(first).coreBanking!.checkedAt,
        'the state is learnt anew once the bound has passed',
      );

      // A call that finds core banking down makes readiness say so at once, without a probe.
      bank.script({ kind: 'fail-before' }, DEFAULT_RETRY.attempts, 'all');
      const requests = bank.requests.length;
      const app = lines.find((line) => line.phase === 'sandbox app')!;
      const client = new TppClient(server.url, app.clientId as string, app.redirectUri as string);
      const initiated = await client.initiate(await client.clientCredentialsToken(), {
        path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        body: domestic(),
      });
      assert.equal(initiated.status, 503);
      assert.equal(bank.requests.length, requests + DEFAULT_RETRY.attempts);
      const down = await health('/readyz');
      assert.equal(down.status, 503);
      assert.equal(down.body.status, 'unavailable');
      assert.equal(systems(down).coreBanking!.state, 'down');
      assert.equal(bank.requests.length, requests + DEFAULT_RETRY.attempts, 'no probe');

      // And readiness comes back within the bound once the system answers again.
      await sleep(STATE_MAX_AGE_MS + 50);
      const back = await health('/readyz');
      assert.equal(back.status, 200);
      assert.equal(systems(back).coreBanking!.state, 'up');
      assert.equal(probes().length, before + 3);
    } finally {
      await server.close();
    }
  });
});
