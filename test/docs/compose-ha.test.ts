// compose.ha.yaml, the highly available topology (docs/high-availability.md), read as Docker Compose
// reads it (YAML with merge keys) and checked against what the gateway and pg_auto_failover need: the
// services it names; a monitor and two data nodes built from deploy/ha (Debian's pg_auto_failover)
// whose addresses, ports, database and user agree with each other and with the gateways' DATABASE_URL;
// a DATABASE_URL in libpq's multi-host form that lists both nodes with target_session_attrs=read-write
// and that the gateway's own parsers take; only settings the gateway knows; healthchecks; one Redis
// shared by both gateways. Docker itself cannot run here: this is what can be checked without it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { parseDatabaseHosts } from '../../src/store/database/hosts.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

interface Service {
  readonly build?: string;
  readonly image?: string;
  readonly command?: string;
  readonly environment?: Record<string, string>;
  readonly ports?: string[];
  readonly depends_on?: Record<string, { condition: string }>;
  readonly healthcheck?: { test: string[] };
  readonly networks?: string[] | Record<string, { ipv4_address?: string }>;
}

const compose = parse(read('compose.ha.yaml'), { merge: true }) as {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: { subnet: string; ip_range: string }[] } }>;
};
const { services } = compose;
const GATEWAYS = ['gateway1', 'gateway2'] as const;
const NODES = ['node1', 'node2'] as const;

function service(name: string): Service {
  const found = services[name];
  assert.ok(found, `compose.ha.yaml has no service ${name}`);
  return found;
}

/** The value of `--option value` in a service's command. */
function option(name: string, flag: string): string {
  const words = (service(name).command ?? '').split(/\s+/);
  const at = words.indexOf(flag);
  assert.ok(at >= 0 && at + 1 < words.length, `${name}'s command has no ${flag} value`);
  return words[at + 1]!;
}

/** The fixed address a service has on the network `ha`. */
function address(name: string): string | undefined {
  const { networks } = service(name);
  return Array.isArray(networks) ? undefined : networks?.ha?.ipv4_address;
}

/** The names the gateway reads from the environment: a setting documented and read by config.ts. */
function knownSettings(): Set<string> {
  const documented = new Set<string>();
  for (const line of read('docs/settings.md').split('\n')) {
    const first = /^\| ([^|]+) \|/.exec(line)?.[1] ?? '';
    for (const [, name] of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) documented.add(name!);
  }
  const inConfig = new Set(
    [...read('src/config.ts').matchAll(/'([A-Z][A-Z0-9_]+)'/g)].map(([, name]) => name!),
  );
  return new Set([...documented].filter((name) => inConfig.has(name)));
}

describe('compose.ha.yaml', () => {
  test('names the two gateways, the monitor, the two data nodes and Redis, and nothing else', () => {
    assert.deepEqual(Object.keys(services).sort(), [
      'gateway1',
      'gateway2',
      'monitor',
      'node1',
      'node2',
      'redis',
    ]);
  });

  test('the monitor and the data nodes run pg_auto_failover from Debian, built from deploy/ha', () => {
    const dockerfile = read('deploy/ha/Dockerfile');
    assert.match(dockerfile, /^FROM debian:bookworm-slim$/m);
    assert.match(dockerfile, /apt-get install [^\n]*postgresql-15-auto-failover/);
    for (const name of ['monitor', ...NODES]) {
      assert.equal(service(name).build, 'deploy/ha', name);
      assert.match(service(name).command ?? '', /--run$/, `${name} runs the service after creating it`);
    }
    assert.match(service('monitor').command ?? '', /^pg_autoctl create monitor /);
    for (const name of NODES) assert.match(service(name).command ?? '', /^pg_autoctl create postgres /);
  });

  test('the nodes register at the monitor where it listens, each under its own fixed address', () => {
    const monitorUrl = parseDatabaseHosts(option('node1', '--monitor'));
    assert.deepEqual(monitorUrl.hosts, [
      { host: address('monitor'), port: Number(option('monitor', '--pgport')) },
    ]);
    assert.equal(option('monitor', '--hostname'), address('monitor'));
    const { subnet, ip_range: dynamic } = compose.networks.ha!.ipam.config[0]!;
    const inRange = (ip: string, cidr: string) => {
      const [base = '', bits = '32'] = cidr.split('/');
      const number = (text: string) => text.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
      const size = 2 ** (32 - Number(bits));
      return Math.floor(number(ip) / size) === Math.floor(number(base) / size);
    };
    const fixed = ['monitor', ...NODES].map((name) => address(name) ?? '');
    assert.equal(new Set(fixed).size, 3, 'three different addresses');
    for (const [index, name] of ['monitor', ...NODES].entries()) {
      assert.ok(inRange(fixed[index]!, subnet), `${name}'s address is on the network`);
      assert.ok(!inRange(fixed[index]!, dynamic), `${name}'s address is outside what Docker hands out`);
    }
    for (const name of NODES) {
      assert.equal(option(name, '--monitor'), option('node1', '--monitor'), `${name}: the same monitor`);
      assert.equal(option(name, '--hostname'), address(name), `${name} is known by its address`);
      assert.equal(option(name, '--name'), name);
    }
  });

  test("the gateways' DATABASE_URL lists both data nodes, read-write only, in the form the gateway parses", () => {
    for (const name of GATEWAYS) {
      const url = service(name).environment?.DATABASE_URL ?? '';
      const parsed = parseDatabaseHosts(url);
      assert.deepEqual(
        parsed.hosts,
        NODES.map((node) => ({ host: node, port: Number(option(node, '--pgport')) })),
        name,
      );
      assert.equal(parsed.target, 'read-write');
      // The user and the database that pg_autoctl created on the nodes.
      for (const node of NODES) {
        assert.equal(
          parsed.urlFor(parsed.hosts[0]!),
          `postgres://${option(node, '--username')}@node1:5432/${option(node, '--dbname')}`,
        );
      }
    }
  });

  test("the gateways' settings are all settings the gateway knows, and its configuration takes them", () => {
    const known = knownSettings();
    for (const name of GATEWAYS) {
      const environment = service(name).environment ?? {};
      const unknown = Object.keys(environment).filter((key) => !known.has(key));
      assert.deepEqual(unknown, [], `${name}: settings the gateway does not read`);
      const config = loadConfig(environment, false);
      assert.equal(config.databaseUrl, environment.DATABASE_URL);
      assert.equal(config.redisUrl, environment.REDIS_URL);
      assert.equal(config.mode, 'sandbox');
      assert.equal(config.publicUrl, `http://localhost:${service(name).ports?.[0]?.split(':')[0]}`);
    }
  });

  test('both gateways share one Redis and one configuration; each publishes its own port', () => {
    const [first, second] = GATEWAYS.map((name) => service(name).environment ?? {});
    const { PUBLIC_URL: _first, ...firstRest } = first!;
    const { PUBLIC_URL: _second, ...secondRest } = second!;
    assert.deepEqual(firstRest, secondRest);
    assert.equal(first!.REDIS_URL, 'redis://redis:6379');
    assert.notEqual(service('gateway1').ports?.[0], service('gateway2').ports?.[0]);
    for (const name of GATEWAYS) {
      assert.equal(service(name).build, '.', `${name}: the repository's Dockerfile`);
      assert.deepEqual(
        service(name).depends_on,
        { node1: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } },
        name,
      );
    }
  });

  test('every service has a healthcheck: its own, or the gateway image asking /readyz', () => {
    for (const name of ['monitor', ...NODES, 'redis']) {
      const check = service(name).healthcheck?.test ?? [];
      assert.equal(check[0], 'CMD', name);
      assert.ok(check.length > 1, name);
    }
    for (const name of NODES) assert.ok(service(name).healthcheck?.test.includes('pg_isready'), name);
    // The gateways keep the image's (Dockerfile), which asks /readyz: 503 while no primary answers.
    for (const name of GATEWAYS) assert.equal(service(name).healthcheck, undefined, name);
    assert.match(read('Dockerfile'), /^HEALTHCHECK [^\n]*\\\n[^\n]*\/readyz/m);
    assert.deepEqual(service('node1').depends_on, { monitor: { condition: 'service_healthy' } });
    assert.deepEqual(service('node2').depends_on, { node1: { condition: 'service_healthy' } });
  });
});
