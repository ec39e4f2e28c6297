// Every assert.ok (and bare assert) in the tests and the bench carries its message. Without one, a
// failing assertion makes Node build the message from the source: it parses the TypeScript file with
// acorn, fails, and tries again from every column, which took 5 to 6 minutes for one failing assertion in
// test/client/tpp-client.test.ts, and then says no more than "false == true".
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { typeScriptFiles } from '../helpers/files.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Where a file calls assert or assert.ok with its value alone, as file:line. */
function withoutMessage(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.length < 2) {
      const callee = node.expression.getText(source);
      if (callee === 'assert' || callee === 'assert.ok') {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('every assert.ok in test/ and bench/ says what failed', async () => {
  const files = [
    ...(await typeScriptFiles(join(ROOT, 'test'))),
    ...(await typeScriptFiles(join(ROOT, 'bench'))),
  ];
  assert.ok(files.length > 50, `${files.length} files read`);
  const found: string[] = [];
  for (const file of files) found.push(...withoutMessage(relative(ROOT, file), await readFile(file, 'utf8')));
  assert.deepEqual(found, []);
  // The check finds what it looks for.
  assert.deepEqual(withoutMessage('x.ts', 'assert.ok(a > 1);\nassert(b);\nassert.ok(c, "c");\n'), [
    'x.ts:1',
    'x.ts:2',
  ]);
});
