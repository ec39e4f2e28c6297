// Every exported type or interface of src/ is declared in one file (issue 38): a second declaration of the
// same name is either the same thing written twice, which drifts, or another thing that should say so by
// its name. A file that needs another's type imports it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { test } from 'node:test';
import { typeScriptFiles } from '../helpers/files.ts';

const SRC = new URL('../../src/', import.meta.url).pathname;

/**
 * Folders that are products of their own, on their way to packages of their own (issue 38, point 5):
 * names are unique within each, and among the rest of src/. None is left: the checker, the demo and the
 * typed client (issue 40) are packages under packages/.
 */
const OWN_PRODUCTS: string[] = [];

/** The exported type and interface names a file declares. */
function declaredTypes(text: string): string[] {
  return [...text.matchAll(/^export\s+(?:declare\s+)?(?:interface|type)\s+([A-Za-z_$][\w$]*)/gm)].map(
    (match) => match[1]!,
  );
}

test('each exported type or interface name is declared in one file of src/', async () => {
  const homes = new Map<string, Map<string, string[]>>();
  for (const file of await typeScriptFiles(SRC)) {
    const path = relative(SRC, file);
    const product = OWN_PRODUCTS.find((folder) => path.startsWith(folder)) ?? '';
    const names = homes.get(product) ?? new Map<string, string[]>();
    homes.set(product, names);
    for (const name of declaredTypes(await readFile(file, 'utf8'))) {
      names.set(name, [...(names.get(name) ?? []), path]);
    }
  }
  const twice = [...homes.values()]
    .flatMap((names) => [...names])
    .filter(([, files]) => files.length > 1)
    .map(([name, files]) => `${name}: ${files.sort().join(', ')}`);
  assert.deepEqual(twice, []);
});
