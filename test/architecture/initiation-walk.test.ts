// A walk of an initiation goes one way down. The walk is every file of src/ that the initiation's route
// file (api/payments/initiation-routes.ts) reaches through its imports, lazy ones included. The layers,
// from the top:
//   0 api/                         the routes and their hooks
//   1 services/<context>/          the use cases of one bounded context
//   2 services/shared/, access/    the kernel
//   3 http/, store/, ports/, certificates/, adapters/   plumbing and the bank's systems
//   4 domain/, config.ts, version.ts                    pure rules and settings
// A climb is an import on the walk that goes back up: from a file to one of a higher layer (a lower
// number), or sideways between two use cases of one context (two files of services/<context>/ that
// route files import: one use case calling another instead of a shared rule). The walk may climb at
// most once; docs/architecture.md ("A walk of an initiation") has the same definition.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importGraph } from './import-graph.ts';

const START = 'api/payments/initiation-routes.ts';

function layerOf(path: string): number {
  const [top, second] = path.split('/');
  if (top === 'api') return 0;
  if (top === 'services') return second === 'shared' || second === 'access' ? 2 : 1;
  // The database URL's parser is pure text, the one file of the store that config.ts may import
  // (layers.test.ts, ALLOWED_FILES): it sits with the settings.
  if (top === 'domain' || top === 'config.ts' || top === 'version.ts' || path === 'store/database/hosts.ts')
    return 4;
  if (['http', 'store', 'ports', 'certificates', 'adapters'].includes(top!)) return 3;
  throw new Error(`${path} is in no layer of the walk: add its folder to layerOf()`);
}

/** The context folder of a use-case file (services/<context>/), or undefined for any other file. */
function contextOf(path: string): string | undefined {
  const parts = path.split('/');
  return layerOf(path) === 1 ? parts.slice(0, 2).join('/') : undefined;
}

test('a walk of an initiation goes one way down, with at most one climb', async () => {
  const graph = await importGraph();
  const useCases = new Set(
    [...graph]
      .filter(([path]) => path.startsWith('api/'))
      .flatMap(([, { ours }]) => ours.filter((target) => contextOf(target) !== undefined)),
  );
  const walked = new Set<string>();
  const climbs: string[] = [];
  const queue = [START];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (walked.has(file)) continue;
    walked.add(file);
    for (const target of graph.get(file)?.ours ?? []) {
      const up = layerOf(target) < layerOf(file);
      const sideways =
        target !== file &&
        useCases.has(file) &&
        useCases.has(target) &&
        contextOf(file) === contextOf(target);
      if (up || sideways) climbs.push(`${file} -> ${target}`);
      queue.push(target);
    }
  }
  assert.ok(walked.has('services/payments/initiation.ts'), 'the walk reaches the initiation use case');
  assert.ok(climbs.length <= 1, `the walk climbs ${climbs.length} times:\n${climbs.join('\n')}`);
});
