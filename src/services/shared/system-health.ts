// The state of each system the gateway depends on (the database, Redis, the bank's systems): up or
// down, when it was last checked and how long it took. Two sources keep it: probes (asked by the health
// answer and at start, each bounded in time, concurrent askers sharing one probe) and the calls the use cases make through the ports (observedPort): a call that answers says
// up, one that fails with SystemUnavailable says down. A state younger than STATE_MAX_AGE_MS (from a
// probe or a call) is answered as it is, without a probe: the health answer is public and unthrottled,
// so a stranger asking it in a loop costs each bank system at most one probe per bound, and a call's
// failure is seen at once. Listeners (the metrics) hear every call and check.
import { type SystemName, type SystemProbe, SystemUnavailable } from '../../domain/bank-systems.ts';
import type { Clock } from '../../domain/clock.ts';

export type { SystemName, SystemProbe } from '../../domain/bank-systems.ts';

export interface SystemState {
  readonly state: 'up' | 'down';
  /** When the state was last learnt (a probe or a call), ISO 8601. */
  readonly checkedAt: string;
  /** How long that probe or call took, ms. */
  readonly latencyMs: number;
  readonly required: boolean;
  /** Where it is (the probe's), when known. */
  readonly where?: string;
  /** Why it is down: for the log only, never for an answer. */
  readonly problem?: string;
}

/**
 * How long a system's state is answered without asking the system again, ms: short enough that readiness
 * follows a system going down or coming back within a load balancer's probe interval (typically 5-10 s),
 * long enough that health answers asked in a loop cost each system at most one probe in that time.
 */
export const STATE_MAX_AGE_MS = 2_000;

export interface SystemListener {
  /** A call or probe of a system ended: its time, and whether it failed (any error). */
  call(system: SystemName, seconds: number, failed: boolean): void;
}

export interface SystemMonitorOptions {
  readonly clock?: Clock;
  /** The longest a probe may take before the system counts as down, ms. */
  readonly timeoutMs?: number;
  /** How long a state is answered without a new probe, ms (STATE_MAX_AGE_MS). */
  readonly maxAgeMs?: number;
}

export class SystemMonitor {
  readonly #probes: readonly SystemProbe[];
  readonly #states = new Map<SystemName, SystemState>();
  /** When each state was learnt, performance.now(): the clock may be a test's, fixed or far ahead. */
  readonly #learntAt = new Map<SystemName, number>();
  readonly #inFlight = new Map<SystemName, Promise<void>>();
  readonly #listeners: SystemListener[] = [];
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #maxAgeMs: number;

  constructor(probes: readonly SystemProbe[], options: SystemMonitorOptions = {}) {
    this.#probes = probes;
    this.#clock = options.clock ?? (() => new Date());
    this.#timeoutMs = options.timeoutMs ?? 2_000;
    this.#maxAgeMs = options.maxAgeMs ?? STATE_MAX_AGE_MS;
  }

  listen(listener: SystemListener): void {
    this.#listeners.push(listener);
  }

  /** The systems probed, in the order given. */
  get probes(): readonly SystemProbe[] {
    return this.#probes;
  }

  /** A call of a system through its port ended (observedPort). */
  record(system: SystemName, ms: number, error?: unknown): void {
    for (const listener of this.#listeners) listener.call(system, ms / 1000, error !== undefined);
    // An answer that is wrong (a refusal, a broken body) still came from a system that answers.
    const down = error instanceof SystemUnavailable;
    this.#set(system, down ? 'down' : 'up', ms, down ? error.message : undefined);
  }

  /** Asks every probe whose system's state is older than the bound, and answers the state of every system known. */
  async check(): Promise<ReadonlyMap<SystemName, SystemState>> {
    await Promise.all(
      this.#probes.filter((probe) => !this.#fresh(probe.system)).map((probe) => this.#probe(probe)),
    );
    return this.states();
  }

  /** Each system's state: the probed ones in the order of their probes, then those only called. */
  states(): ReadonlyMap<SystemName, SystemState> {
    const rank = (system: SystemName) => {
      const index = this.#probes.findIndex((probe) => probe.system === system);
      return index === -1 ? this.#probes.length : index;
    };
    return new Map([...this.#states].sort(([a], [b]) => rank(a) - rank(b)));
  }

  /** No system that readiness depends on is down. */
  ready(): boolean {
    return [...this.#states.values()].every((state) => !state.required || state.state === 'up');
  }

  #fresh(system: SystemName): boolean {
    const learntAt = this.#learntAt.get(system);
    return learntAt !== undefined && performance.now() - learntAt < this.#maxAgeMs;
  }

  #probe(probe: SystemProbe): Promise<void> {
    let running = this.#inFlight.get(probe.system);
    if (running === undefined) {
      running = this.#run(probe).finally(() => this.#inFlight.delete(probe.system));
      this.#inFlight.set(probe.system, running);
    }
    return running;
  }

  async #run(probe: SystemProbe): Promise<void> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    let problem: string | undefined;
    try {
      await Promise.race([probe.probe(), timeout]);
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
    const ms = performance.now() - started;
    for (const listener of this.#listeners) listener.call(probe.system, ms / 1000, problem !== undefined);
    this.#set(probe.system, problem === undefined ? 'up' : 'down', ms, problem);
  }

  #set(system: SystemName, state: 'up' | 'down', ms: number, problem: string | undefined): void {
    const probe = this.#probes.find((candidate) => candidate.system === system);
    this.#learntAt.set(system, performance.now());
    this.#states.set(system, {
      state,
      checkedAt: this.#clock().toISOString(),
      latencyMs: Math.round(ms * 10) / 10,
      required: probe?.required ?? false,
      ...(probe === undefined ? {} : { where: probe.where }),
      ...(problem === undefined ? {} : { problem }),
    });
  }
}

/**
 * A port whose every asynchronous call tells the monitor how long it took and whether the system
 * answered; everything else of the port (optional methods, fields) stays as it is.
 */
export function observedPort<T extends object>(
  port: T,
  system: SystemName,
  monitor: SystemMonitor,
  /** An answer that says the system is down without throwing (a login result "unavailable"). */
  downAnswer: (result: unknown) => string | undefined = () => undefined,
): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(port, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      let call = wrapped.get(property);
      if (call === undefined) {
        call = (...args: unknown[]) => {
          const started = performance.now();
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(result instanceof Promise)) return result;
          return result.then(
            (answer) => {
              const down = downAnswer(answer);
              monitor.record(
                system,
                performance.now() - started,
                down === undefined ? undefined : new SystemUnavailable(system, down),
              );
              return answer;
            },
            (error: unknown) => {
              monitor.record(system, performance.now() - started, error);
              throw error;
            },
          );
        };
        wrapped.set(property, call);
      }
      return call;
    },
  });
}
