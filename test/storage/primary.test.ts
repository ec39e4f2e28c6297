// Which of several database hosts takes the connections (store/database/primary.ts), with probes faked
// through the locator's own seam: each host says what its sessions are, fails, or stays silent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DatabaseHost } from '../../src/store/database/hosts.ts';
import {
  HostLocator,
  NoSuitableHostError,
  REDISCOVERY_INTERVAL_MS,
  type SessionState,
  suits,
  writerTarget,
} from '../../src/store/database/primary.ts';
import { isDatabaseUnavailable } from '../../src/store/database/unavailable.ts';

const STANDBY: SessionState = { readOnly: true, hotStandby: true };
const PRIMARY: SessionState = { readOnly: false, hotStandby: false };
const h1 = { host: 'db1', port: 5432 };
const h2 = { host: 'db2', port: 5433 };
const h3 = { host: '::1', port: 5434 };

/** Each host's answer, changed by the test; counts the probes; `silent` never answers. */
function cluster(initial: Record<string, SessionState | 'refused' | 'silent'>) {
  const states = { ...initial };
  const probes: string[] = [];
  const events: string[] = [];
  let clock = 0;
  const probe = (host: DatabaseHost) => {
    probes.push(host.host);
    const state = states[host.host];
    if (state === 'silent') return new Promise<SessionState>(() => {});
    if (state === 'refused' || state === undefined)
      return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    return Promise.resolve(state);
  };
  const locator = (hosts: readonly DatabaseHost[], target = writerTarget(undefined, hosts.length)) =>
    new HostLocator({
      hosts,
      target,
      probe,
      now: () => clock,
      onFound: (host, before) => events.push(`found ${host.host}${before ? ` (was ${before.host})` : ''}`),
      onLost: (host) => events.push(`lost ${host.host}`),
      onNone: (message) => events.push(`none: ${message}`),
    });
  return {
    states,
    probes,
    events,
    locator,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

test('the host that takes writes is chosen, though a standby is listed first', async () => {
  const { locator, events } = cluster({ db1: STANDBY, db2: PRIMARY });
  assert.deepEqual(await locator([h1, h2]).current(), h2);
  assert.deepEqual(events, ['found db2']);
});

test('concurrent connections share one discovery, and the host found serves without asking again', async () => {
  const { locator, probes } = cluster({ db1: STANDBY, db2: PRIMARY });
  const located = locator([h1, h2]);
  const found = await Promise.all([located.current(), located.current(), located.current()]);
  assert.deepEqual(found, [h2, h2, h2]);
  assert.deepEqual(await located.current(), h2);
  assert.deepEqual(probes, ['db1', 'db2']);
});

test('a silent host does not hold the discovery: the first host to answer as a primary is taken', async () => {
  const { locator } = cluster({ db1: 'silent', db2: PRIMARY });
  assert.deepEqual(await locator([h1, h2]).current(), h2);
});

test('no primary: an "unavailable" error naming what each host said, asked again at most every interval', async () => {
  const { locator, probes, advance, events, states } = cluster({
    db1: STANDBY,
    db2: 'refused',
    '::1': STANDBY,
  });
  const located = locator([h1, h2, h3]);
  const message =
    'no database host is read-write: db1:5432 is a standby; db2:5433 did not answer (ECONNREFUSED); [::1]:5434 is a standby';
  const failure = await located.current().catch((error: unknown) => error);
  assert.ok(failure instanceof NoSuitableHostError, 'no host takes writes: NoSuitableHostError');
  assert.equal(failure.message, message);
  assert.ok(isDatabaseUnavailable(failure), 'a 503, not a 500');
  // Within the interval: the same answer at once, no probe.
  advance(REDISCOVERY_INTERVAL_MS - 1);
  await assert.rejects(located.current(), { name: 'NoSuitableHostError', message });
  assert.equal(probes.length, 3);
  // After it: asked again; still none (said once), then the standby promoted.
  advance(1);
  await assert.rejects(located.current(), { name: 'NoSuitableHostError', message });
  assert.equal(probes.length, 6);
  states.db1 = PRIMARY;
  advance(REDISCOVERY_INTERVAL_MS);
  assert.deepEqual(await located.current(), h1);
  assert.deepEqual(events, [`none: ${message}`, 'found db1']);
});

test('a lost primary is looked for again; the new one is logged with the one it replaces', async () => {
  const { locator, states, events, probes } = cluster({ db1: STANDBY, db2: PRIMARY });
  const located = locator([h1, h2]);
  assert.deepEqual(await located.current(), h2);
  // A connection to a host not in use (an old one) says nothing about the one in use.
  located.lost(h1);
  assert.deepEqual(await located.current(), h2);
  assert.equal(probes.length, 2);
  states.db2 = 'refused';
  states.db1 = PRIMARY;
  located.lost(h2);
  assert.deepEqual(await located.current(), h1);
  assert.deepEqual(events, ['found db2', 'lost db2', 'found db1 (was db2)']);
});

test('one host without target_session_attrs: taken as it is, never probed, never lost', async () => {
  const { locator, probes } = cluster({ db1: STANDBY });
  const located = locator([h1]);
  located.lost(h1);
  assert.deepEqual(await located.current(), h1);
  assert.deepEqual(probes, []);
});

test('one host with target_session_attrs=read-write: a standby is refused', async () => {
  const { locator } = cluster({ db1: STANDBY });
  await assert.rejects(locator([h1], 'read-write').current(), {
    name: 'NoSuitableHostError',
    message: 'no database host is read-write: db1:5432 is a standby',
  });
});

test("the targets' meanings are libpq's; several hosts without one mean read-write", () => {
  const readOnlyPrimary = { readOnly: true, hotStandby: false };
  const table = (['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const).map(
    (target) => [target, [PRIMARY, readOnlyPrimary, STANDBY].map((state) => suits(target, state))],
  );
  assert.deepEqual(table, [
    ['any', [true, true, true]],
    ['read-write', [true, false, false]],
    ['read-only', [false, true, true]],
    ['primary', [true, true, false]],
    ['standby', [false, false, true]],
    ['prefer-standby', [true, true, true]],
  ]);
  assert.deepEqual(
    [
      writerTarget(undefined, 1),
      writerTarget(undefined, 2),
      writerTarget('primary', 2),
      writerTarget('any', 1),
    ],
    [undefined, 'read-write', 'primary', 'any'],
  );
});

test('a standby promoted while another host is silent is found within the interval, not at the silent host’s connect bound', async () => {
  // db1: the old primary's machine, gone silent: its probe fails only at the connect bound (faked
  // here: when the test says so). db2: a standby, promoted while db1 is still silent.
  let db2: SessionState = STANDBY;
  let giveUpOnDb1: (error: Error) => void = () => {};
  const asked: string[] = [];
  const located = new HostLocator({
    hosts: [h1, h2],
    target: 'read-write',
    probe: (host) => {
      asked.push(host.host);
      if (host.host === 'db1')
        return new Promise<SessionState>((_, reject) => {
          giveUpOnDb1 = reject;
        });
      return Promise.resolve(db2);
    },
  });
  const found = located.current();
  await new Promise((resolve) => setTimeout(resolve, REDISCOVERY_INTERVAL_MS / 2));
  db2 = PRIMARY;
  assert.deepEqual(await found, h2, 'the promoted standby, while db1 has not answered');
  assert.deepEqual(asked, ['db1', 'db2', 'db2'], 'db2 asked again once, db1 once');
  giveUpOnDb1(Object.assign(new Error('timeout exceeded when trying to connect'), { code: 'ETIMEDOUT' }));
});
