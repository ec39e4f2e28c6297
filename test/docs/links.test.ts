// Every link a reader is given resolves inside a clone: the relative links of README.md and docs/**.md
// (anchors too: a heading of that name), and every repository path cited by them, by the OpenAPI
// document's texts and by the checker's and the command line's texts (`docs/contract/API-NOTES.md`,
// `test/docs/readme.test.ts`, ...). None of them points outside the repository (`../shared`).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

const ROOT = resolve(new URL('../../', import.meta.url).pathname);
/** The folders a cited path starts with: what a clone holds (dist/ is built, not cloned). */
const CITED = /(?<![\w./:-])((?:docs|src|test|bench|scripts|packages|bin)\/[\w.@/-]*[\w])/g;

function filesUnder(folder: string, extension: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(extension))
    .map((name) => join(folder, name));
}

/** The Markdown pages a reader opens: the README and every page under docs/. */
const PAGES = ['README.md', ...filesUnder('docs', '.md')];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => slug(heading!)));
}

/** A page's relative links, `[text](target)`, with the line they are on (code blocks left out). */
function linksOf(file: string): { line: number; target: string }[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const links: { line: number; target: string }[] = [];
  let code = false;
  lines.forEach((text, index) => {
    if (text.startsWith('```')) code = !code;
    if (code) return;
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(target!)) links.push({ line: index + 1, target: target! });
    }
  });
  return links;
}

/** What is wrong with a cited repository path: nothing, or the reason. */
function missingPath(path: string): string | undefined {
  return existsSync(join(ROOT, path)) ? undefined : `${path} does not exist`;
}

/** The paths a text cites that do not exist in the clone; fenced blocks (trees, commands) left out. */
function missingCited(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return [...new Set([...prose.matchAll(CITED)].map(([, path]) => path!))]
    .map(missingPath)
    .filter((reason) => reason !== undefined);
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('links and cited paths resolve inside a clone', () => {
  test('the relative links of the README and the docs, anchors included', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const { line, target } of linksOf(page)) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), path));
        if (file.startsWith('..') || !existsSync(join(ROOT, file))) {
          broken.push(`${page}:${line}: ${target} (no ${file} in the repository)`);
        } else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor)) {
          broken.push(`${page}:${line}: ${target} (no heading "${anchor}" in ${file})`);
        } else if (anchor !== undefined && statSync(join(ROOT, file)).isDirectory()) {
          broken.push(`${page}:${line}: ${target} (an anchor on a folder)`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  test('the paths the README and the docs cite', () => {
    const missing = PAGES.flatMap((page) =>
      missingCited(readFileSync(join(ROOT, page), 'utf8')).map((reason) => `${page}: ${reason}`),
    );
    assert.deepEqual(missing, []);
  });

  test("the paths the checker's and the command line's texts cite", () => {
    const sources = [...filesUnder('packages/check/src', '.ts'), ...filesUnder('src/cli', '.ts')];
    const missing = sources.flatMap((file) =>
      missingCited(readFileSync(join(ROOT, file), 'utf8')).map((reason) => `${file}: ${reason}`),
    );
    assert.deepEqual(missing, []);
    // The checker names where its CONTRACT column's sources are.
    const legend = readFileSync(join(ROOT, 'packages/check/src/format.ts'), 'utf8');
    assert.ok(
      legend.includes('docs/contract/spec/payment-initiation-service.md'),
      'the checker names the spec in docs/contract',
    );
    assert.ok(legend.includes('docs/contract/API-NOTES.md'), 'the checker names API-NOTES in docs/contract');
  });

  test('nothing a reader is given points outside the repository', () => {
    const outside = [...PAGES, ...filesUnder('packages/check/src', '.ts')]
      .filter((file) => !file.startsWith('docs/contract/') || file === 'docs/contract/README.md')
      .filter((file) => readFileSync(join(ROOT, file), 'utf8').includes('../shared'));
    assert.deepEqual(outside, []);
  });

  describe('the OpenAPI document', () => {
    let gateway: Gateway;
    before(async () => {
      gateway = await startGateway();
    });
    after(() => gateway?.close());

    test('the paths its descriptions cite', async () => {
      const answer = await gateway.app.inject({ method: 'GET', url: '/openapi.json' });
      assert.equal(answer.statusCode, 200);
      const texts = strings(answer.json()).join('\n');
      assert.deepEqual(missingCited(texts), []);
      assert.ok(!texts.includes('../shared'), 'the OpenAPI document cites nothing under ../shared');
    });
  });
});
