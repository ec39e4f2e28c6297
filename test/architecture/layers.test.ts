// The dependency rules of docs/architecture.md: api -> services -> (domain, store, ports); adapters
// implement ports and are wired in app.ts; domain imports nothing of ours but domain, and no I/O
// library; ports are interfaces in the domain's words; a bounded context under services/ imports only
// the kernel (shared, access), the layers below and itself; nothing imports in a circle; only
// config.ts reads the environment. The graph (import-graph.ts) counts lazy import() too.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { typeScriptFiles } from '../helpers/files.ts';
import { importGraph, importsOf, SRC } from './import-graph.ts';

/**
 * The room a file is in: a bounded context of services/ (services/payments, ...), another folder of
 * src/, or a file at its top (app.ts, main.ts, config.ts).
 */
function roomOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'services' && parts.length > 2) return `services/${parts[1]}`;
  return parts[0]!;
}

const KERNEL = ['services/shared', 'services/access'];
const BELOW_SERVICES = ['domain', 'store', 'ports', 'certificates', 'config.ts'];
const CONTEXTS = ['payments', 'authorization', 'account-information', 'onboarding', 'notifications'].map(
  (c) => `services/${c}`,
);

/** Which rooms each room may import from (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  domain: [],
  ports: ['domain'],
  store: ['domain'],
  adapters: ['ports', 'domain', 'store'],
  certificates: ['domain'],
  'services/shared': BELOW_SERVICES,
  'services/access': ['services/shared', ...BELOW_SERVICES],
  ...Object.fromEntries(CONTEXTS.map((context) => [context, [...KERNEL, ...BELOW_SERVICES]])),
  // http/ is the plumbing below the use cases: it calls none (the hooks that ask the kernel live in
  // api/shared/); services/shared only for the metrics' types.
  http: ['services/shared', 'domain', 'certificates', 'config.ts'],
  api: ['http', 'services', ...CONTEXTS, ...KERNEL, 'domain', 'config.ts', 'version.ts'],
  sandbox: ['adapters', 'domain', 'store', 'config.ts'],
  cli: ['certificates', 'domain', 'sandbox', 'store', 'config.ts', 'main.ts', 'version.ts'],
  'config.ts': [],
  'version.ts': [],
  'app.ts': [
    'api',
    'http',
    'adapters',
    'certificates',
    'sandbox',
    ...CONTEXTS,
    ...KERNEL,
    'store',
    'config.ts',
  ],
  // The bank's systems the settings name, made at start (src/systems.ts), each with its probe (a domain type).
  'systems.ts': ['adapters', 'ports', 'domain', 'config.ts'],
  // The primary of several workers: forks and watches them (src/workers.ts).
  'workers.ts': ['config.ts'],
  'main.ts': [
    'app.ts',
    'systems.ts',
    'workers.ts',
    'config.ts',
    'domain',
    'http',
    'sandbox',
    'services/shared',
    'store',
  ],
};
/**
 * Single files a room may import outside its rows: config.ts checks DATABASE_URL with the very parser
 * the store connects with (pure text, no I/O), so that a URL the store could not use stops the start.
 */
const ALLOWED_FILES: Record<string, readonly string[]> = {
  'config.ts': ['store/database/hosts.ts'],
};
const DOMAIN_LIBRARIES = ['node:crypto', 'ibantools', 'kontonummer'];
const PORT_LIBRARIES: string[] = [];

test('each room imports only the rooms below it, and a bounded context only the kernel and itself', async () => {
  const problems: string[] = [];
  for (const [path, { ours, libraries }] of await importGraph()) {
    const room = roomOf(path);
    const allowed = ALLOWED[room];
    if (allowed === undefined) {
      problems.push(`${path} is in no room with rules (add it to ALLOWED)`);
      continue;
    }
    for (const target of ours) {
      const targetRoom = roomOf(target);
      if (targetRoom !== room && !allowed.includes(targetRoom) && !ALLOWED_FILES[room]?.includes(target))
        problems.push(`${path} imports ${target}`);
    }
    const libraryRule = room === 'domain' ? DOMAIN_LIBRARIES : room === 'ports' ? PORT_LIBRARIES : undefined;
    for (const library of libraries) {
      if (libraryRule !== undefined && !libraryRule.includes(library))
        problems.push(`${path} imports the library ${library}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('ports are interfaces: no code that runs, no database or store type', async () => {
  const problems: string[] = [];
  for (const file of await typeScriptFiles(join(SRC, 'ports'))) {
    const text = await readFile(file, 'utf8');
    const path = relative(SRC, file);
    if (/^export (async )?(function|const|let|class)\b/m.test(text)) problems.push(`${path} exports code`);
    if (/^import (?!type )/m.test(text)) problems.push(`${path} imports values, not only types`);
  }
  assert.deepEqual(problems, []);
});

test('the graph sees every kind of import: static, re-export, for effect, and lazy import()', () => {
  const text = [
    "import type { A } from './a.ts';",
    "export { b } from './b.ts';",
    "import 'reflect-metadata';",
    "const c = await import('./c.ts');",
    "loading ??= import('./d.ts').then((module) => module.d);",
  ].join('\n');
  assert.deepEqual(importsOf(text), ['./a.ts', './b.ts', 'reflect-metadata', './c.ts', './d.ts']);
});

test('nothing imports in a circle', async () => {
  const graph = await importGraph();
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const target of graph.get(file)?.ours ?? []) visit(target, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});

test('route files follow one name: api/<interface>/<resource>-routes.ts', async () => {
  const misnamed: string[] = [];
  for (const file of await typeScriptFiles(join(SRC, 'api'))) {
    const registers = /\bapp\.(get|post|put|delete|patch|all|route)[<(]/.test(await readFile(file, 'utf8'));
    const path = relative(SRC, file);
    if (registers !== /^api\/[a-z-]+\/[a-z0-9-]+-routes\.ts$/.test(path)) misnamed.push(path);
  }
  assert.deepEqual(misnamed, []);
});

test('only src/config.ts reads process.env', async () => {
  const readers: string[] = [];
  for (const file of await typeScriptFiles(SRC)) {
    if ((await readFile(file, 'utf8')).includes('process.env')) readers.push(relative(SRC, file));
  }
  assert.deepEqual(readers, ['config.ts']);
});

test('only the policy decides by mode: no mode checks elsewhere', async () => {
  const checks: string[] = [];
  for (const file of await typeScriptFiles(SRC)) {
    const path = relative(SRC, file);
    if (path === 'config.ts' || path === 'services/shared/policy.ts') continue;
    if (/\bmode\s*[!=]==|[!=]==\s*'(sandbox|live)'/.test(await readFile(file, 'utf8'))) checks.push(path);
  }
  assert.deepEqual(checks, []);
});
