// Concurrent calls of one write, joined into one statement: while `maxInFlight` statements are under
// way, new items wait and go together in the next one (and so in one commit: group commit). At low
// load an item runs at once and alone; under load the batches grow by themselves. A failed batch is
// tried again item by item, so that one item's failure is its own and the others still happen.

export interface CoalescerLimits {
  /** Statements of this kind running at once. */
  readonly maxInFlight: number;
  /** Items in one statement. */
  readonly maxBatch: number;
}

interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (output: O) => void;
  readonly reject: (error: unknown) => void;
}

export class Coalescer<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private inFlight = 0;

  /**
   * `run` performs one statement for the items and answers one output per item, in order. Items with
   * the same `key` never share a statement (the later one waits for the next), so that the statement
   * need not decide between them.
   */
  constructor(
    private readonly run: (items: readonly I[]) => Promise<readonly O[]>,
    private readonly key: (item: I) => string,
    private readonly limits: CoalescerLimits,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.limits.maxInFlight && this.waiting.length > 0) {
      const batch = this.take();
      this.inFlight += 1;
      void this.runBatch(batch).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  /** The oldest waiting items, up to maxBatch, at most one per key. */
  private take(): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    let index = 0;
    while (index < this.waiting.length && batch.length < this.limits.maxBatch) {
      const waiting = this.waiting[index]!;
      const key = this.key(waiting.item);
      if (keys.has(key)) {
        index += 1;
        continue;
      }
      keys.add(key);
      batch.push(waiting);
      this.waiting.splice(index, 1);
    }
    return batch;
  }

  private async runBatch(batch: readonly Waiting<I, O>[]): Promise<void> {
    try {
      const outputs = await this.run(batch.map((waiting) => waiting.item));
      for (const [index, waiting] of batch.entries()) waiting.resolve(outputs[index]!);
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      await Promise.all(batch.map((waiting) => this.runBatch([waiting])));
    }
  }
}
