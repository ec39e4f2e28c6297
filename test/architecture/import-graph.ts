// The import graph of src/, read from the code itself: what the layer, map and walk tests share.
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { typeScriptFiles } from '../helpers/files.ts';

export const SRC = new URL('../../src/', import.meta.url).pathname;

/**
 * Every module a file imports or re-exports (type-only ones included), imports for effect alone
 * (`import 'x'`), and modules loaded on demand (`import('x')`, `await import('x')`): a lazy import is
 * still a dependency, and a circle through one is still a circle.
 */
export function importsOf(text: string): string[] {
  const fromClauses = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)];
  const forEffect = [...text.matchAll(/^import\s+'([^']+)'/gm)];
  const onDemand = [...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)];
  return [...fromClauses, ...forEffect, ...onDemand].map((match) => match[1]!);
}

export interface Imports {
  /** Our modules, as paths relative to src/. */
  readonly ours: string[];
  readonly libraries: string[];
}

/** The files of src/ (paths relative to src/) with what each imports of ours and of libraries. */
export async function importGraph(): Promise<Map<string, Imports>> {
  const graph = new Map<string, Imports>();
  for (const file of await typeScriptFiles(SRC)) {
    const specifiers = [...new Set(importsOf(await readFile(file, 'utf8')))];
    graph.set(relative(SRC, file), {
      // Our modules; a data file beside src/ (package.json, read by version.ts) is no room.
      ours: specifiers
        .filter((s) => s.startsWith('.') && s.endsWith('.ts'))
        .map((s) => relative(SRC, join(file, '..', s))),
      libraries: specifiers.filter((s) => !s.startsWith('.')),
    });
  }
  return graph;
}
