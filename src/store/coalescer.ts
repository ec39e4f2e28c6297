// Concurrent calls of one statement, joined: while `maxInFlight` statements of a kind are under way,
// new items wait and go together in the next one (for a write also one commit: group commit). Items
// submitted in one turn of the event loop (the requests read from the sockets in one poll) go out
// together right after it (setImmediate), not one by one: on a machine where sending to the database
// is an expensive system call, that halves the statements. At low load an item runs alone, delayed
// by no timer; under load the batches grow by themselves. A failed batch is
// tried again item by item, so that one item's failure is its own and the others still happen; unless
// a write's failure is the whole batch's (the database cannot answer): then every item gets it.
import { isDatabaseUnavailable } from './database/unavailable.ts';

export interface CoalescerOptions<I> {
  /** Statements of this kind running at once. */
  readonly maxInFlight: number;
  /** Items in one statement. */
  readonly maxBatch: number;
  /**
   * Items with the same key never share a statement (the later one waits for the next), so that a
   * write need not decide between them. Reads leave it out: the same item twice is simply read once.
   */
  readonly key?: (item: I) => string;
  /** Told the size of each batch as it starts (the metrics' batch sizes). */
  readonly onBatch?: (size: number) => void;
  /**
   * Whether a failure is the whole batch's rather than one item's: every item is rejected with it and
   * none is run again. A write whose connection died after its commit took effect, run again item by
   * item, would be refused as a duplicate (a 500 for what was done) or done twice.
   */
  readonly batchFailure?: (error: unknown) => boolean;
}

/**
 * The limits of most coalescers (reads and writes alike): two statements in flight, each with
 * everything that came meanwhile (a call that arrives while one runs goes at the end of its turn of
 * the event loop: batching waits only when a queue forms), 64 items at most in one. Measured on 2
 * cores (issue 18): one in flight had the fullest statements but made initiation's p99 at 10
 * connections 3-4.6x raw's and reads slower; two kept it under 3x at about the same rate at 50
 * connections, and four gave nothing more.
 */
export const BATCH_LIMITS = { maxInFlight: 2, maxBatch: 64 } as const;

interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (output: O) => void;
  readonly reject: (error: unknown) => void;
}

export class Coalescer<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private inFlight = 0;
  /** A pump is scheduled for the end of this turn of the event loop. */
  private scheduled = false;

  /** `run` performs one statement for the items and answers one output per item, in order. */
  constructor(
    private readonly run: (items: readonly I[]) => Promise<readonly O[]>,
    private readonly options: CoalescerOptions<I>,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.waiting.length > 0) {
      const batch = this.take();
      this.options.onBatch?.(batch.length);
      this.inFlight += 1;
      void this.runBatch(batch).finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    }
  }

  /** The oldest waiting items, up to maxBatch, at most one per key. */
  private take(): Waiting<I, O>[] {
    const { key, maxBatch } = this.options;
    if (key === undefined) return this.waiting.splice(0, maxBatch);
    const batch: Waiting<I, O>[] = [];
    const left: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    for (const waiting of this.waiting) {
      const itemKey = key(waiting.item);
      if (batch.length === maxBatch || keys.has(itemKey)) {
        left.push(waiting);
      } else {
        keys.add(itemKey);
        batch.push(waiting);
      }
    }
    this.waiting.splice(0, this.waiting.length, ...left);
    return batch;
  }

  private async runBatch(batch: readonly Waiting<I, O>[]): Promise<void> {
    try {
      const outputs = await this.run(batch.map((waiting) => waiting.item));
      for (const [index, waiting] of batch.entries()) waiting.resolve(outputs[index]!);
    } catch (error) {
      if (batch.length === 1 || this.options.batchFailure?.(error) === true) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      await Promise.all(batch.map((waiting) => this.runBatch([waiting])));
    }
  }
}

/** Told the size of each batch a coalescer of a handle starts, by the statement's name. */
export type BatchObserver = (statement: string, size: number) => void;

const batchObservers = new WeakMap<object, Set<BatchObserver>>();

/**
 * Tells `observer` the size of every batch of the coalescers on `handle` (a database handle) until the
 * answered function is called. Several may observe one handle (gateways sharing a store).
 */
export function observeBatches(handle: object, observer: BatchObserver): () => void {
  let observers = batchObservers.get(handle);
  if (observers === undefined) {
    observers = new Set();
    batchObservers.set(handle, observers);
  }
  observers.add(observer);
  return () => observers.delete(observer);
}

/** A joined statement's limits other than BATCH_LIMITS, and its key (see CoalescerOptions). */
export type JoinedOptions<I> = Partial<Pick<CoalescerOptions<I>, 'maxInFlight' | 'maxBatch' | 'key'>> & {
  /**
   * The statement only reads: a failed batch is run again item by item whatever the failure (a read
   * done twice changes nothing, and a new connection may well answer it).
   */
  readonly reads?: boolean;
};

/**
 * The statement `statement` joined with its concurrent calls, one coalescer per handle: `run` performs
 * it for the items on the handle, and the sizes of its batches are told to the handle's observers
 * (observeBatches) under the statement's name. BATCH_LIMITS unless `options` says otherwise.
 */
export function joinedStatement<H extends object, I, O>(
  statement: string,
  run: (handle: H, items: readonly I[]) => Promise<readonly O[]>,
  options: JoinedOptions<I> = {},
): (handle: H, item: I) => Promise<O> {
  const coalescers = new WeakMap<H, Coalescer<I, O>>();
  return (handle, item) => {
    let coalescer = coalescers.get(handle);
    if (coalescer === undefined) {
      const { reads: _, ...limits } = options;
      coalescer = new Coalescer((items: readonly I[]) => run(handle, items), {
        ...BATCH_LIMITS,
        ...limits,
        // A write whose database cannot answer fails every item: the caller answers 503 and the
        // client repeats the request under its Idempotency-Key.
        ...(options.reads === true ? {} : { batchFailure: isDatabaseUnavailable }),
        onBatch: (size) => {
          for (const observer of batchObservers.get(handle) ?? []) observer(statement, size);
        },
      });
      coalescers.set(handle, coalescer);
    }
    return coalescer.submit(item);
  };
}
