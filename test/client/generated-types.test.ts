// The typed client's bodies are the gateway's schemas: the committed packages/client/src/generated/openapi.ts
// is what openapi-typescript generates from the OpenAPI document the sandbox serves (npm run client:types).
// A route schema changed without generating again fails here, before a TPP's build does.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { COMMITTED_CLIENT_TYPES, clientTypes } from '../../scripts/client-types.ts';
import { sandboxDocument } from '../../scripts/sandbox-document.ts';
import { startGateway } from '../helpers/gateway.ts';

test('the committed client types are the ones the OpenAPI document generates (npm run client:types)', async () => {
  const generated = await clientTypes(await sandboxDocument());
  const committed = await readFile(COMMITTED_CLIENT_TYPES, 'utf8');
  // One line named, not a 600 KB diff.
  const lines = [generated.split('\n'), committed.split('\n')] as const;
  const first = lines[0].findIndex((line, index) => line !== lines[1][index]);
  assert.ok(
    generated === committed,
    `packages/client/src/generated/openapi.ts differs from line ${first + 1}: run npm run client:types\n` +
      `generated: ${lines[0][first]}\ncommitted: ${lines[1][first]}`,
  );
});

test('the document the types come from is the one a running sandbox serves at /openapi.json', async () => {
  const gateway = await startGateway();
  try {
    const served = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as { paths: object };
    const built = (await sandboxDocument()) as { paths: object };
    assert.deepEqual(Object.keys(served.paths).sort(), Object.keys(built.paths).sort());
    assert.equal(await clientTypes(served), await clientTypes(built));
  } finally {
    await gateway.close();
  }
});
