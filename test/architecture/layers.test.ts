// The dependency rule of DESIGN.md: api -> services -> (domain, store, ports); domain imports nothing
// of ours but domain, and no I/O library; only config.ts reads the environment.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const SRC = new URL('../../src/', import.meta.url).pathname;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : [join(dir, entry.name)],
    ),
  );
  return nested.flat().filter((file) => file.endsWith('.ts'));
}

function importsOf(text: string): string[] {
  return [...text.matchAll(/^import\s[^;]*?from\s+'([^']+)'/gms)].map((match) => match[1]!);
}

/** Which top-level folders of src/ each layer may import from. */
const ALLOWED: Record<string, readonly string[]> = {
  domain: ['domain'],
  store: ['store', 'domain'],
  ports: ['ports', 'domain', 'store'],
  services: ['services', 'domain', 'store', 'ports', 'certificates', 'config.ts'],
  http: ['http', 'services', 'domain', 'store', 'certificates', 'config.ts'],
  certificates: ['certificates', 'domain'],
  api: ['api', 'http', 'services', 'domain', 'config.ts'],
  client: ['client'],
  cli: ['cli', 'certificates', 'domain', 'store', 'config.ts', 'main.ts'],
};
const DOMAIN_LIBRARIES = ['node:crypto', 'ibantools', 'kontonummer'];

test('each layer imports only the layers below it', async () => {
  const problems: string[] = [];
  for (const file of await sourceFiles(SRC)) {
    const path = relative(SRC, file);
    const layer = path.split('/')[0]!;
    const allowed = ALLOWED[layer];
    if (allowed === undefined) continue;
    const text = await readFile(file, 'utf8');
    for (const specifier of importsOf(text)) {
      if (specifier.startsWith('.')) {
        const target = relative(SRC, join(file, '..', specifier)).split('/')[0]!;
        if (!allowed.includes(target)) problems.push(`${path} imports ${specifier}`);
      } else if (layer === 'domain' && !DOMAIN_LIBRARIES.includes(specifier)) {
        problems.push(`${path} imports the library ${specifier}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('only src/config.ts reads process.env', async () => {
  const readers: string[] = [];
  for (const file of await sourceFiles(SRC)) {
    if ((await readFile(file, 'utf8')).includes('process.env')) readers.push(relative(SRC, file));
  }
  assert.deepEqual(readers, ['config.ts']);
});
