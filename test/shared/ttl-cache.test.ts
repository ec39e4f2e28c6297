import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TtlCache } from '../../src/services/shared/ttl-cache.ts';

test('entries expire after their time to live', () => {
  let now = 1000;
  const cache = new TtlCache<string>(100, 10, () => now);
  cache.set('a', 'A');
  now += 99;
  assert.equal(cache.get('a'), 'A');
  now += 1;
  assert.equal(cache.get('a'), undefined);
});

test('beyond its size the oldest entry goes first', () => {
  const cache = new TtlCache<number>(60_000, 2);
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3);
  assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], [undefined, 2, 3]);
});

test('an entry can be dropped before its time', () => {
  const cache = new TtlCache<number>(60_000, 10);
  cache.set('a', 1);
  cache.delete('a');
  assert.equal(cache.get('a'), undefined);
});
