// The map stays true: docs/architecture.md's tree names every folder and every .ts file of src/, and
// nothing that is gone. How the tree is read (also written under "The map's rule" in that document):
// - the tree is the first fenced block after the heading "## The tree";
// - an entry line is its indentation (two spaces a level) and then one or more names separated by
//   ", ", then two spaces or the end of the line; what follows is what the entry holds;
// - a name is one path segment: a file with its extension (`apps.ts`) or a folder ending in `/`
//   (`grants/`); a folder on a line of its own opens it for the lines one level deeper;
// - every other line (the indented continuation of a description) names nothing. Lines are counted
//   from src/ (line 1) in what the test reports.
// So a line `money.ts, dates.ts  minor units, the bank's dates` names both files in its folder.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { SRC } from './import-graph.ts';

const MAP = new URL('../../docs/architecture.md', import.meta.url);

const NAME = String.raw`[A-Za-z0-9_][A-Za-z0-9_.-]*(?:\.[a-z]+|/)`;
const ENTRY = new RegExp(String.raw`^((?:  )*)(${NAME}(?:, ${NAME})*)(?:  +\S.*)?$`);

/** The paths (relative to src/; folders end in `/`) the tree names, and the lines it cannot place. */
function namesOfTree(markdown: string): { named: string[]; problems: string[] } {
  const afterHeading = markdown.split(/^## The tree$/m)[1];
  const block = afterHeading?.split(/^```/m)[1];
  if (block === undefined)
    return { named: [], problems: ['docs/architecture.md has no "## The tree" block'] };
  const named: string[] = [];
  const problems: string[] = [];
  // folders[d] is the folder a line of depth d + 1 is in; depth 0 is src/ itself.
  const folders: string[] = [];
  for (const [index, line] of block.split('\n').slice(1).entries()) {
    const match = ENTRY.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 2;
    const names = match[2]!.split(', ');
    if (depth === 0) {
      if (names.join() !== 'src/') problems.push(`tree line ${index + 1}: the root must be src/`);
      folders.length = 0;
      folders.push('');
      continue;
    }
    const parent = folders[depth - 1];
    if (parent === undefined || folders.length < depth) {
      problems.push(`tree line ${index + 1} (${names.join(', ')}) sits under no folder`);
      continue;
    }
    folders.length = depth;
    for (const name of names) named.push(parent + name);
    if (names.length === 1 && names[0]!.endsWith('/')) folders.push(parent + names[0]!);
    else if (names.some((name) => name.endsWith('/')))
      problems.push(`tree line ${index + 1}: a folder goes on a line of its own`);
  }
  return { named, problems };
}

/** Every folder (ending in `/`) and every .ts file under src/, relative to src/. */
async function pathsOfSrc(dir = SRC): Promise<string[]> {
  const paths: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) paths.push(`${relative(SRC, full)}/`, ...(await pathsOfSrc(full)));
    else if (entry.name.endsWith('.ts')) paths.push(relative(SRC, full));
  }
  return paths;
}

async function exists(path: string): Promise<boolean> {
  try {
    const entry = await readdir(join(SRC, path, '..'), { withFileTypes: true });
    const name = path.replace(/\/$/, '').split('/').pop();
    return entry.some((e) => e.name === name && e.isDirectory() === path.endsWith('/'));
  } catch {
    return false;
  }
}

test('the tree of docs/architecture.md names every folder and .ts file of src/, and nothing gone', async () => {
  const { named, problems } = namesOfTree(await readFile(MAP, 'utf8'));
  const set = new Set(named);
  for (const path of await pathsOfSrc()) {
    if (!set.has(path)) problems.push(`missing from the tree: ${path}`);
  }
  for (const path of named) {
    if (!(await exists(path))) problems.push(`named in the tree, not in src/: ${path}`);
  }
  assert.deepEqual(problems, []);
});

test('the tree is read by the rule: lists name each file, folders open a level, prose names nothing', () => {
  const markdown = [
    '## The tree',
    '',
    '```',
    'src/',
    '  main.ts                 start(): config, listen',
    '                          seed, buildApp, listen; clean.ts stop',
    '  domain/                 pure rules',
    '    money.ts, dates.ts    minor units, dates',
    '  store/',
    '    migrations/           the SQL',
    '      0001_initial.sql',
    '    database.ts',
    '                              stray.ts',
    '```',
  ].join('\n');
  assert.deepEqual(namesOfTree(markdown), {
    named: [
      'main.ts',
      'domain/',
      'domain/money.ts',
      'domain/dates.ts',
      'store/',
      'store/migrations/',
      'store/migrations/0001_initial.sql',
      'store/database.ts',
    ],
    problems: ['tree line 10 (stray.ts) sits under no folder'],
  });
});
