// WORKERS=n: the primary process forks n workers (node:cluster) that serve the same port, each a whole
// gateway on the shared PostgreSQL database. The primary serves nothing: it replaces a worker that dies
// while serving (again and again, waiting longer, when the replacement cannot start), stops everything
// when one of the first cannot start, and passes SIGTERM and SIGINT on.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from './config.ts';

/** The longest wait before a replacement worker is forked again after failing to start. */
const MAX_BACKOFF_MS = 30_000;

export function superviseWorkers(
  config: Pick<Config, 'workers' | 'shutdownTimeoutMs'>,
  logger: Logger,
): void {
  const serving = new WeakSet<Worker>();
  let stopping = false;
  let exitCode = 0;
  // Until every first worker listened, a failed start stops the whole: the next would fail the same
  // way (a setting, a bank system). After that a replacement that fails (say, during a database
  // failover) is forked again, waiting longer each time, while the others serve.
  let started = 0;
  let backoffMs = 0;

  const fork = () => {
    const worker = cluster.fork();
    worker.once('listening', () => {
      serving.add(worker);
      started++;
      backoffMs = 0;
    });
  };

  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    // Each worker finishes its requests within SHUTDOWN_TIMEOUT_MS; this bound is the last resort.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.stderr.write(
        `psd2-gateway: workers still running after SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs} ms): exiting\n`,
      );
      process.exit(1);
    }, config.shutdownTimeoutMs + 1_000).unref();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
  };

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      // Killed by a signal while stopping (the last resort) counts as a failure too.
      if (code !== 0) exitCode = exitCode || (code ?? 1);
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    if (!serving.has(worker) && started < config.workers) {
      // It said why on stderr (a setting, a bank system): starting it again would fail the same way.
      logger.error({ worker: worker.id, code, signal }, 'a worker could not start: stopping');
      stop(code === 0 || code === null ? 1 : code);
      return;
    }
    if (!serving.has(worker)) {
      backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(1_000, backoffMs * 2));
      logger.error(
        { worker: worker.id, code, signal, retryInMs: backoffMs },
        'a replacement worker could not start',
      );
      setTimeout(() => {
        if (!stopping) fork();
      }, backoffMs).unref();
      return;
    }
    logger.error({ worker: worker.id, code, signal }, 'a worker died while serving: starting another');
    fork();
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop(0));
  for (let i = 0; i < config.workers; i++) fork();
}
