// GET /.well-known/jwks.json and the sandbox's generated key: the whole answer, the key the database
// keeps (the same for every app instance on the database, and after a restart), a delivery signed by
// another process verified with the served key set, and the OpenAPI document's route and webhook.
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { verifyNotification } from '@psd2-gateway/client';
import { sql } from 'drizzle-orm';
import { NotificationBody } from '../../src/api/notifications/schemas.ts';
import { openNotificationSigner } from '../../src/services/notifications/signing.ts';
import { openStore } from '../../src/store/database/open.ts';
import { backends, openTestStore, queryRows, startGateway, TEST_DATABASE_URL } from '../helpers/gateway.ts';

/** The JWK that the stored private key should be published as, computed here with node:crypto. */
function expectedJwk(pem: string) {
  const { x, y } = createPublicKey(createPrivateKey(pem)).export({ format: 'jwk' });
  const kid = createHash('sha256')
    .update(`{"crv":"P-256","kty":"EC","x":"${x}","y":"${y}"}`)
    .digest('base64url');
  return { kty: 'EC', crv: 'P-256', x, y, kid, alg: 'ES256', use: 'sig' };
}

for (const backend of backends()) {
  describe(`the sandbox's notification key (${backend})`, () => {
    test('served at the origin, public, cached 5 minutes; the same from two instances and after a restart', async () => {
      const store = await openTestStore(backend);
      const first = await startGateway({ store, config: { basePath: '/openbanking' } });
      const second = await startGateway({ store });
      try {
        const answers = await Promise.all(
          [first, second].map((gateway) =>
            gateway.app.inject({ method: 'GET', url: '/.well-known/jwks.json' }),
          ),
        );
        const [row] = await queryRows<{ pem: string }>(
          store,
          sql`SELECT private_key AS pem FROM notification_signing_key`,
        );
        assert.ok(row !== undefined, 'the generated key is kept in the database');
        for (const answer of answers) {
          assert.equal(answer.statusCode, 200);
          assert.equal(answer.headers['cache-control'], 'public, max-age=300');
          assert.match(String(answer.headers['content-type']), /^application\/json/);
          assert.deepEqual(answer.json(), { keys: [expectedJwk(row.pem)] });
        }
        // Not under BASE_PATH: RFC 8615 places it at the origin.
        const under = await first.app.inject({ method: 'GET', url: '/openbanking/.well-known/jwks.json' });
        assert.equal(under.statusCode, 404);
        await first.close();
        const restarted = await startGateway({ store });
        try {
          const again = await restarted.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
          assert.deepEqual(again.json(), answers[0]!.json());
        } finally {
          await restarted.close();
        }
      } finally {
        await second.close();
        await store.close();
      }
    });

    test('a delivery signed by another process verifies with the key set the gateway serves', async () => {
      const gateway = await startGateway({ backend });
      const other =
        backend === 'postgres'
          ? await openStore({ databaseUrl: TEST_DATABASE_URL, schemaName: gateway.store.schemaName })
          : gateway.store;
      try {
        // Both ask at once for a key the database does not hold yet: one key wins, for both.
        const signer = await openNotificationSigner(gateway.config, other.db);
        const [served, kid] = await Promise.all([
          fetch(new URL('/.well-known/jwks.json', gateway.url)).then((answer) => answer.json()),
          signer.keyId(),
        ]);
        assert.equal(served.keys[0].kid, kid);
        const body = Buffer.from(JSON.stringify({ notificationId: 'n-1', status: 'ACSC' }));
        const url = 'http://127.0.0.1:9/notify';
        const headers = await signer.sign({ method: 'POST', url, body });
        assert.deepEqual(await verifyNotification({ method: 'POST', url, headers, body }, served), {
          ok: true,
          keyId: kid,
          created: new Date(Number(/created=(\d+)/.exec(headers['signature-input']!)![1]) * 1000),
        });
      } finally {
        if (other !== gateway.store) await other.close();
        await gateway.close();
      }
    });
  });
}

test('a first read that fails (the database away) is tried again by the next call', async () => {
  const store = await openTestStore('pglite');
  try {
    let failures = 0;
    const flaky = new Proxy(store.db, {
      get(target, property) {
        if (property === 'insert' && failures === 0) {
          failures++;
          return () => {
            throw new Error('the database is away');
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const signer = await openNotificationSigner(
      { notificationSigningKey: undefined, notificationSigningKeysRetired: [] },
      flaky,
    );
    await assert.rejects(signer.jwks(), /the database is away/);
    const [row] = await queryRows<{ pem: string }>(
      store,
      sql`SELECT private_key AS pem FROM notification_signing_key`,
    );
    assert.equal(row, undefined, 'nothing was stored by the failed call');
    const { keys } = await signer.jwks();
    const [stored] = await queryRows<{ pem: string }>(
      store,
      sql`SELECT private_key AS pem FROM notification_signing_key`,
    );
    assert.deepEqual(keys, [expectedJwk(stored!.pem)]);
  } finally {
    await store.close();
  }
});

test('an embedded database on disk (DATA_DIR): the key outlives the process that generated it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'psd2-jwks-'));
  const dataDir = join(dir, 'db');
  const served = async () => {
    const store = { ...(await openStore({ dataDir })), schemaName: undefined };
    const gateway = await startGateway({ store });
    try {
      const answer = await gateway.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
      assert.equal(answer.statusCode, 200);
      return answer.json();
    } finally {
      await gateway.close();
      await store.close();
    }
  };
  try {
    const first = await served();
    assert.equal(first.keys.length, 1);
    assert.deepEqual(await served(), first);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the OpenAPI document: the key set route, and the notification as a webhook with its signature headers', async () => {
  const gateway = await startGateway();
  try {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const route = document.paths['/.well-known/jwks.json'].get;
    assert.equal(route.operationId, 'getNotificationKeys');
    assert.equal(route.security, undefined);
    assert.deepEqual(Object.keys(route.responses['200'].content), ['application/json']);
    const webhook = document.webhooks.statusNotification.post;
    assert.equal(webhook.operationId, 'statusNotification');
    assert.deepEqual(
      webhook.parameters.map((parameter: { name: string; in: string; required: boolean }) => [
        parameter.name,
        parameter.in,
        parameter.required,
      ]),
      [
        ['Content-Digest', 'header', true],
        ['Signature-Input', 'header', true],
        ['Signature', 'header', true],
      ],
    );
    assert.deepEqual(
      webhook.requestBody.content['application/json'].schema,
      JSON.parse(JSON.stringify(NotificationBody)),
    );
    assert.deepEqual(Object.keys(webhook.responses), ['2XX', '5XX']);
    assert.ok(
      document.tags.some((tag: { name: string }) => tag.name === 'Notifications'),
      'the Notifications tag is declared',
    );
  } finally {
    await gateway.close();
  }
});
