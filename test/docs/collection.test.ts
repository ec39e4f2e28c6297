// The Postman collection generated from the OpenAPI document: the committed one is what the document
// generates (npm run collection), /sandbox/collection carries the sandbox's own values, and newman (the
// collection runner a TPP would use) runs its flows against the sandbox with every test passing.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { EVERY_OPERATION } from '../../src/api/docs/collection/every-operation.ts';
import { FLOWS } from '../../src/api/docs/collection/flows.ts';
import {
  COMMITTED_COLLECTION,
  COMMITTED_VALUES,
  type OpenApiDocument,
  postmanCollection,
} from '../../src/api/docs/collection.ts';
import { backends, type Gateway, REDIRECT_URI, startGateway } from '../helpers/gateway.ts';

interface NewmanSummary {
  run: {
    stats: { requests: { total: number; failed: number }; assertions: { total: number; failed: number } };
    failures: { error: { message: string; test?: string }; source?: { name?: string } }[];
    executions: {
      item: { name: string };
      request: unknown;
      response?: { code: number; stream?: Uint8Array };
      assertions?: { assertion: string; error?: { message: string } }[];
    }[];
    timings: { started: number; completed: number };
  };
}
const newman = createRequire(import.meta.url)('newman') as {
  run(options: object, done: (error: Error | null, summary: NewmanSummary) => void): unknown;
};

function runCollection(collection: object, folders: readonly string[]): Promise<NewmanSummary> {
  return new Promise((resolve, reject) => {
    newman.run(
      { collection, folder: [...folders], reporters: [], timeoutRequest: 10_000, timeout: 120_000 },
      (error, summary) => (error === null ? resolve(summary) : reject(error)),
    );
  });
}

test('the committed collection is the one the document generates (npm run collection)', async () => {
  const gateway = await startGateway();
  try {
    const committed = JSON.parse(
      await readFile(new URL(`../../${COMMITTED_COLLECTION}`, import.meta.url), 'utf8'),
    );
    const generated = postmanCollection(
      gateway.app.swagger() as unknown as OpenApiDocument,
      COMMITTED_VALUES,
    );
    assert.deepEqual(
      committed,
      JSON.parse(JSON.stringify(generated)),
      'run npm run collection and commit it',
    );
  } finally {
    await gateway.close();
  }
});

for (const backend of backends()) {
  describe(`the sandbox's collection, run by newman, on ${backend}`, () => {
    let gateway: Gateway;
    let collection: { variable: { key: string; value: string }[]; item: { name: string; item: unknown[] }[] };
    before(async () => {
      gateway = await startGateway({ backend });
    });
    after(() => gateway?.close());

    test("GET /sandbox/collection carries this sandbox's base URL, client id and redirect URI", async () => {
      const answer = await fetch(`${gateway.url}/sandbox/collection`);
      assert.equal(answer.status, 200);
      collection = (await answer.json()) as typeof collection;
      const expected = postmanCollection(gateway.app.swagger() as unknown as OpenApiDocument, {
        baseUrl: new URL(gateway.url).origin,
        clientId: gateway.sandboxApp.clientId,
        redirectUri: REDIRECT_URI,
      });
      assert.deepEqual(collection, JSON.parse(JSON.stringify(expected)));
      assert.deepEqual(
        collection.item.map((folder) => [folder.name, folder.item.length]),
        [...FLOWS.map((flow) => [flow.name, flow.steps.length]), ['Every operation', EVERY_OPERATION.length]],
      );
    });

    test('the decoupled flow polls while IN_PROGRESS, sleep_time apart (Sofia Slow)', async () => {
      // Flow 2 paying from Sofia Slow's account: her e-ID order answers IN_PROGRESS twice, then COMPLETE.
      const decoupled = structuredClone(collection.item[1]!) as {
        name: string;
        item: { name: string; request: { body?: { raw: string } } }[];
      };
      const initiate = decoupled.item.find((item) => item.name === 'Initiate a payment (Sweden v2)')!;
      const body = JSON.parse(initiate.request.body!.raw);
      body.debtorAccount.value = '6000240000064';
      initiate.request.body!.raw = JSON.stringify(body);
      const summary = await runCollection({ ...collection, item: [decoupled] }, [decoupled.name]);
      assert.deepEqual(summary.run.failures, []);
      const polls = summary.run.executions
        .filter((execution) => execution.item.name === 'Poll until COMPLETE (sleep_time apart)')
        .map((execution) => JSON.parse(Buffer.from(execution.response!.stream!).toString()).result);
      assert.deepEqual(polls, ['IN_PROGRESS', 'IN_PROGRESS', 'COMPLETE']);
      // Each poll waited the 2000 ms the start or the poll before asked for.
      const took = summary.run.timings.completed - summary.run.timings.started;
      assert.ok(took >= 3 * 2000, `the run took ${took} ms`);
    });

    test('every flow runs with every test passing', async () => {
      const summary = await runCollection(
        collection,
        FLOWS.map((flow) => flow.name),
      );
      const failures = summary.run.failures.map(
        (failure) => `${failure.source?.name}: ${failure.error.test ?? ''} ${failure.error.message}`,
      );
      assert.deepEqual(failures, []);
      const steps = FLOWS.reduce((sum, flow) => sum + flow.steps.length, 0);
      assert.equal(summary.run.stats.requests.failed, 0);
      // Every request tested its status and its body.
      assert.deepEqual(
        summary.run.executions
          .filter((execution) => (execution.assertions ?? []).length < 2)
          .map((execution) => execution.item.name),
        [],
      );
      // Each step once (the decoupled poll again while IN_PROGRESS: the sandbox completes at once).
      assert.equal(summary.run.stats.requests.total, steps);
      assert.ok(
        summary.run.stats.assertions.total > steps,
        `${summary.run.stats.assertions.total} assertions`,
      );
      const executed = summary.run.executions.map((execution) => [
        execution.item.name,
        execution.response?.code,
      ]);
      assert.deepEqual(
        executed.filter(([name]) => name === "Execute with the PSU's token"),
        [
          ["Execute with the PSU's token", 200],
          ["Execute with the PSU's token", 200],
        ],
      );
    });

    test('"Every operation": each operation answers as its tests say, with every variable filled', async () => {
      const every = collection.item.find((folder) => folder.name === 'Every operation')!;
      const summary = await runCollection({ ...collection, item: [every] }, [every.name]);
      const failures = summary.run.failures.map(
        (failure) => `${failure.source?.name}: ${failure.error.test ?? ''} ${failure.error.message}`,
      );
      assert.deepEqual(failures, []);
      const steps = EVERY_OPERATION.reduce((sum, folder) => sum + folder.steps.length, 0);
      assert.equal(summary.run.stats.requests.total, steps);
      // No {{variable}} left unresolved in what was sent (URL, headers, body).
      const unresolved = summary.run.executions.flatMap((execution) =>
        (JSON.stringify(execution.request).match(/\{\{[^}]*\}\}/g) ?? []).map(
          (variable) => `${execution.item.name}: ${variable}`,
        ),
      );
      assert.deepEqual(unresolved, []);
      // Every request tested its status and more (the body, or the text of a page).
      const thin = summary.run.executions
        .filter((execution) => (execution.assertions ?? []).length < 2 && execution.response?.code !== 204)
        .map((execution) => execution.item.name);
      assert.deepEqual(thin, []);
      // Every operation of the document was sent at least once.
      const operations = new Set(
        EVERY_OPERATION.flatMap((folder) => folder.steps.map((step) => step.operationId)),
      );
      const document = gateway.app.swagger() as unknown as OpenApiDocument;
      const documented = Object.values(document.paths).flatMap((item) =>
        Object.values(item).map((operation) => operation.operationId),
      );
      assert.deepEqual(
        documented.filter((operationId) => operationId !== undefined && !operations.has(operationId)),
        [],
      );
    });
  });
}
