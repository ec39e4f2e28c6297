// The coalescer that joins concurrent writes into one statement: the items of one turn together, alone
// at rest, one key per batch, and a failed batch tried again item by item (unless the failure is the
// whole batch's).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Coalescer, joinedStatement } from '../../src/store/coalescer.ts';

/** A statement runner that records its batches and finishes when told to. */
function recorder(fail: (item: string) => boolean = () => false) {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  const run = (items: readonly string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push([...items]);
      pending.push(() =>
        items.some(fail) ? reject(new Error('batch failed')) : resolve(items.map((item) => `done ${item}`)),
      );
    });
  /** Finishes every statement under way and lets the next ones start (at the end of the next turn). */
  const finish = async () => {
    for (const next of pending.splice(0)) next();
    await turn();
    await turn();
  };
  return { batches, run, finish };
}

/** The end of this turn of the event loop, when the items submitted in it go out. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

const byItem = (item: string) => item.split(':')[0]!;

test('an item at rest runs alone at the end of its turn, delayed by no timer', async () => {
  const { batches, run, finish } = recorder();
  const coalescer = new Coalescer(run, { maxInFlight: 2, maxBatch: 10, key: byItem });
  const answer = coalescer.submit('a');
  assert.deepEqual(batches, []);
  await turn();
  assert.deepEqual(batches, [['a']]);
  await finish();
  assert.equal(await answer, 'done a');
});

test('items of one turn go together; while maxInFlight statements run, the next ones wait', async () => {
  const { batches, run, finish } = recorder();
  const coalescer = new Coalescer(run, { maxInFlight: 2, maxBatch: 3, key: byItem });
  const answers = ['a', 'b'].map((item) => coalescer.submit(item));
  await turn();
  assert.deepEqual(batches, [['a', 'b']]);
  // One statement is under way: the next turn's items take the second.
  answers.push(...['c', 'd', 'e', 'f'].map((item) => coalescer.submit(item)));
  await turn();
  assert.deepEqual(batches, [
    ['a', 'b'],
    ['c', 'd', 'e'],
  ]);
  answers.push(coalescer.submit('g'));
  await turn();
  assert.deepEqual(batches, [
    ['a', 'b'],
    ['c', 'd', 'e'],
  ]);
  await finish();
  assert.deepEqual(batches, [
    ['a', 'b'],
    ['c', 'd', 'e'],
    ['f', 'g'],
  ]);
  await finish();
  assert.deepEqual(await Promise.all(answers), [
    'done a',
    'done b',
    'done c',
    'done d',
    'done e',
    'done f',
    'done g',
  ]);
});

test('items with the same key never share a statement', async () => {
  const { batches, run, finish } = recorder();
  const coalescer = new Coalescer(run, { maxInFlight: 1, maxBatch: 10, key: byItem });
  const answers = ['x:1', 'k:1', 'k:2', 'm:1', 'k:3'].map((item) => coalescer.submit(item));
  await turn();
  await finish();
  await finish();
  await finish();
  assert.deepEqual(batches, [['x:1', 'k:1', 'm:1'], ['k:2'], ['k:3']]);
  assert.equal((await Promise.all(answers)).length, 5);
});

/**
 * 'first' alone, then 'a', 'bad' and 'b' in one batch that fails because of 'bad' (an Error 'batch
 * failed'); every statement finished three times over. The batches run and each item's answer.
 */
async function batchWithBadItem(batchFailure?: (error: unknown) => boolean) {
  const { batches, run, finish } = recorder((item) => item === 'bad');
  const coalescer = new Coalescer(run, {
    maxInFlight: 1,
    maxBatch: 10,
    key: byItem,
    ...(batchFailure === undefined ? {} : { batchFailure }),
  });
  const first = coalescer.submit('first');
  await turn();
  const answers = ['a', 'bad', 'b'].map((item) =>
    coalescer.submit(item).catch((error: Error) => error.message),
  );
  for (let round = 0; round < 3; round++) await finish();
  return { batches, answers: [await first, ...(await Promise.all(answers))] };
}

test('a failed batch is tried item by item: only the bad item fails', async () => {
  assert.deepEqual(await batchWithBadItem(), {
    batches: [['first'], ['a', 'bad', 'b'], ['a'], ['bad'], ['b']],
    answers: ['done first', 'done a', 'batch failed', 'done b'],
  });
});

test("a batch's own failure (the database cannot answer) fails every item, none is run again", async () => {
  // A batch whose connection died may have committed: run again item by item, a write would be
  // refused as a duplicate or done twice.
  const batchFailure = (error: unknown) => (error as Error).message === 'batch failed';
  assert.deepEqual(await batchWithBadItem(batchFailure), {
    batches: [['first'], ['a', 'bad', 'b']],
    answers: ['done first', 'batch failed', 'batch failed', 'batch failed'],
  });
});

/**
 * A joined statement whose first batch (a, b, c) dies with its connection and whose later statements
 * answer: the batches it ran and each item's answer.
 */
async function joinedOnDeadConnection(options: { reads?: boolean }) {
  const batches: string[][] = [];
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  const statement = joinedStatement(
    'statement',
    async (_handle: object, items: readonly string[]) => {
      batches.push([...items]);
      if (batches.length === 1) throw reset;
      return items.map((item) => `done ${item}`);
    },
    options,
  );
  const handle = {};
  const answers = await Promise.all(
    ['a', 'b', 'c'].map((item) =>
      statement(handle, item).catch((error: unknown) => (error === reset ? 'reset' : error)),
    ),
  );
  return { batches, answers };
}

test("a joined write's batch on a connection that died fails every item, none is run again", async () => {
  assert.deepEqual(await joinedOnDeadConnection({}), {
    batches: [['a', 'b', 'c']],
    answers: ['reset', 'reset', 'reset'],
  });
});

test("a joined read's batch on a connection that died is read again item by item", async () => {
  assert.deepEqual(await joinedOnDeadConnection({ reads: true }), {
    batches: [['a', 'b', 'c'], ['a'], ['b'], ['c']],
    answers: ['done a', 'done b', 'done c'],
  });
});

test('reads have no key: the same item twice goes in one statement', async () => {
  const { batches, run, finish } = recorder();
  const coalescer = new Coalescer(run, { maxInFlight: 1, maxBatch: 10 });
  const answers = ['a', 'k', 'k', 'm'].map((item) => coalescer.submit(item));
  await turn();
  assert.deepEqual(batches, [['a', 'k', 'k', 'm']]);
  await finish();
  assert.deepEqual(await Promise.all(answers), ['done a', 'done k', 'done k', 'done m']);
});
