// The coalescer that joins concurrent writes into one statement: batching under load, alone at rest,
// one key per batch, and a failed batch tried again item by item.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Coalescer } from '../../src/store/coalescer.ts';

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
  /** Finishes every statement under way and lets the next ones start. */
  const finish = async () => {
    for (const next of pending.splice(0)) next();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { batches, run, finish };
}

const byItem = (item: string) => item.split(':')[0]!;

test('an item at rest runs at once and alone', async () => {
  const { batches, run, finish } = recorder();
  const coalescer = new Coalescer(run, { maxInFlight: 2, maxBatch: 10, key: byItem });
  const answer = coalescer.submit('a');
  assert.deepEqual(batches, [['a']]);
  await finish();
  assert.equal(await answer, 'done a');
});

test('under load the waiting items go together, each answered with its own output', async () => {
  const { batches, run, finish } = recorder();
  const coalescer = new Coalescer(run, { maxInFlight: 1, maxBatch: 3, key: byItem });
  const answers = ['a', 'b', 'c', 'd', 'e', 'f'].map((item) => coalescer.submit(item));
  assert.deepEqual(batches, [['a']]);
  await finish();
  assert.deepEqual(batches, [['a'], ['b', 'c', 'd']]);
  await finish();
  await finish();
  assert.deepEqual(batches, [['a'], ['b', 'c', 'd'], ['e', 'f']]);
  assert.deepEqual(await Promise.all(answers), ['done a', 'done b', 'done c', 'done d', 'done e', 'done f']);
});

test('items with the same key never share a statement', async () => {
  const { batches, run, finish } = recorder();
  const coalescer = new Coalescer(run, { maxInFlight: 1, maxBatch: 10, key: byItem });
  const answers = ['x:1', 'k:1', 'k:2', 'm:1', 'k:3'].map((item) => coalescer.submit(item));
  await finish();
  await finish();
  await finish();
  await finish();
  assert.deepEqual(batches, [['x:1'], ['k:1', 'm:1'], ['k:2'], ['k:3']]);
  assert.equal((await Promise.all(answers)).length, 5);
});

test('a failed batch is tried item by item: only the bad item fails', async () => {
  const { batches, run, finish } = recorder((item) => item === 'bad');
  const coalescer = new Coalescer(run, { maxInFlight: 1, maxBatch: 10, key: byItem });
  const first = coalescer.submit('first');
  const answers = ['a', 'bad', 'b'].map((item) =>
    coalescer.submit(item).catch((error: Error) => error.message),
  );
  await finish();
  await finish();
  await finish();
  assert.deepEqual(batches, [['first'], ['a', 'bad', 'b'], ['a'], ['bad'], ['b']]);
  assert.equal(await first, 'done first');
  assert.deepEqual(await Promise.all(answers), ['done a', 'batch failed', 'done b']);
});

test('reads have no key: the same item twice goes in one statement', async () => {
  const { batches, run, finish } = recorder();
  const coalescer = new Coalescer(run, { maxInFlight: 1, maxBatch: 10 });
  const answers = ['a', 'k', 'k', 'm'].map((item) => coalescer.submit(item));
  await finish();
  await finish();
  assert.deepEqual(batches, [['a'], ['k', 'k', 'm']]);
  assert.deepEqual(await Promise.all(answers), ['done a', 'done k', 'done k', 'done m']);
});
