// Reads that every request makes (its token, its consent, the PSU's accounts, a statement), joined with
// the same reads of concurrent requests into one statement: under load one round trip and one plan
// serve tens of requests, at low load a read runs alone (store/coalescer.ts). The
// statement takes one array per parameter, unnests them WITH ORDINALITY and answers each row with the
// 1-based number of the item it belongs to in a column "item".
import { joinedStatement } from './coalescer.ts';
import { runStatement, type StoreDb } from './database.ts';

/** The rows of one item, in the statement's order. */
export type BatchedRead<I, R> = (db: StoreDb, item: I) => Promise<R[]>;

/**
 * A read joined with its concurrent calls. `columns` turns the items into the statement's parameters,
 * one array per parameter ($1, $2, ...), each as long as the items.
 */
export function batchedRead<I, R>(
  name: string,
  text: string,
  columns: (items: readonly I[]) => unknown[][],
): BatchedRead<I, R> {
  return joinedStatement(
    name,
    async (db: StoreDb, items: readonly I[]) => {
      const rows = await runStatement<R & { item: number }>(db, name, text, columns(items));
      const outputs: R[][] = items.map(() => []);
      for (const { item, ...row } of rows) outputs[Number(item) - 1]!.push(row as unknown as R);
      return outputs;
    },
    { reads: true },
  );
}
