// A background turn every so often (the audit sealer, the notifications' delivery): never two turns at
// once (a tick while one runs is skipped, never queued: a queue of turns would outlive the stop and run
// on a store being closed), and a stop that waits for the turn under way, and for whatever else the
// caller names, at most a bound (a database gone silent must not hold a shutdown).

export interface PeriodicOptions {
  readonly intervalMs: number;
  /** How long the stop waits, at most. */
  readonly stopWaitMs: number;
  readonly onError: (error: unknown) => void;
  /** What else the stop waits for (work the turns started and did not await). */
  readonly pending?: () => Iterable<Promise<unknown>>;
}

/** Starts the turns; answers the stop. `turn` is told whether the stop came, to end a long turn early. */
export function every(
  turn: (stopped: () => boolean) => Promise<unknown>,
  options: PeriodicOptions,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const isStopped = () => stopped;
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    running = turn(isStopped)
      .catch(options.onError)
      .finally(() => {
        busy = false;
      });
  }, options.intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    let bound: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([running, ...(options.pending?.() ?? [])]),
      new Promise((resolve) => {
        bound = setTimeout(resolve, options.stopWaitMs);
        bound.unref();
      }),
    ]);
    clearTimeout(bound);
  };
}
