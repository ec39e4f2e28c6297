// The workspace packages (packages/: the checker, the demo and the typed client) stay packages of their
// own: src/ imports them in its CLI entry only, a package reaches outside its folder only through its seam
// files (so a later move changes one line), the typed client imports nothing at all (it is published and
// runs in browsers), the root depends on each, and docs/architecture.md lists each file.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { typeScriptFiles } from '../helpers/files.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PACKAGES = join(ROOT, 'packages');
/** The files of a package that may import from outside it: one per thing taken from the root. */
const SEAMS = ['src/cli-args.ts'];

/** Every module a file imports, re-exports or loads with import(), type-only ones included. */
function specifiersOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)'([^']+)'/g)].map((match) => match[1]!);
}

/** A package's own files: its sources, not what a build left in dist/. */
const sourcesOf = (home: string) => typeScriptFiles(join(home, 'src'));

async function packageNames(): Promise<string[]> {
  const entries = await readdir(PACKAGES, { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

test('src/ imports the packages in its CLI entry only', async () => {
  const importers: string[] = [];
  for (const file of await typeScriptFiles(join(ROOT, 'src'))) {
    const text = await readFile(file, 'utf8');
    if (specifiersOf(text).some((s) => s.startsWith('@psd2-gateway/'))) importers.push(relative(ROOT, file));
  }
  assert.deepEqual(importers, ['src/cli/index.ts']);
});

test('a package imports from outside its folder only in its seam files', async () => {
  const problems: string[] = [];
  for (const name of await packageNames()) {
    const home = join(PACKAGES, name);
    for (const file of await sourcesOf(home)) {
      const path = relative(home, file);
      for (const specifier of specifiersOf(await readFile(file, 'utf8'))) {
        if (!specifier.startsWith('.')) continue;
        const outside = relative(home, join(file, '..', specifier)).startsWith('..');
        if (outside && !SEAMS.includes(path)) problems.push(`packages/${name}/${path} imports ${specifier}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('the typed client imports only its own files: no package, no node: module', async () => {
  const home = join(PACKAGES, 'client');
  const problems: string[] = [];
  for (const file of await sourcesOf(home)) {
    for (const specifier of specifiersOf(await readFile(file, 'utf8'))) {
      const outside = relative(home, join(file, '..', specifier)).startsWith('..');
      if (!specifier.startsWith('.') || outside)
        problems.push(`${relative(home, file)} imports ${specifier}`);
    }
  }
  assert.deepEqual(problems, []);
  const manifest = JSON.parse(await readFile(join(home, 'package.json'), 'utf8'));
  assert.deepEqual(
    [manifest.private, manifest.license, manifest.dependencies, manifest.peerDependencies],
    [undefined, 'MIT', undefined, undefined],
  );
});

test('the root is a workspace of packages/* and depends on each package at its version', async () => {
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  assert.deepEqual(root.workspaces, ['packages/*']);
  for (const name of await packageNames()) {
    const manifest = JSON.parse(await readFile(join(PACKAGES, name, 'package.json'), 'utf8'));
    assert.equal(manifest.name, `@psd2-gateway/${name}`);
    assert.equal(root.dependencies[manifest.name], manifest.version, `the root depends on ${manifest.name}`);
  }
});

test("docs/architecture.md's Packages tree lists every file of every package", async () => {
  const doc = await readFile(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = /\n## Packages\n[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(section !== undefined, 'docs/architecture.md has a "## Packages" section with a tree');
  const missing: string[] = [];
  for (const name of await packageNames()) {
    // The package's lines: from its "  <name>/" line to the next package's.
    const lines = section.split('\n');
    const start = lines.findIndex((line) => line.startsWith(`  ${name}/ `));
    const end = lines.findIndex((line, index) => index > start && /^ {2}\S/.test(line));
    const listed = new Set(
      lines.slice(start + 1, end === -1 ? undefined : end).map((line) => line.trim().split(/\s+/)[0]),
    );
    const home = join(PACKAGES, name);
    const extra = ['tsconfig.json', 'README.md'].filter((name) => existsSync(join(home, name)));
    const files = [
      join(home, 'package.json'),
      ...extra.map((name) => join(home, name)),
      ...(await sourcesOf(home)),
    ];
    for (const file of files) {
      const path = relative(home, file);
      if (start === -1 || !listed.has(path)) missing.push(`packages/${name}/${path}`);
    }
  }
  assert.deepEqual(missing, []);
});
