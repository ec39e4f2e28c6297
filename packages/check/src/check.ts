// What a conformance check is, what it can find, and what the flow's steps hand to later checks.
import type { CheckOptions } from './options.ts';

/** An answer that breaks the contract: what the contract row wants, and what came instead. */
export class Deviation extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`expected ${expected}; got ${actual}`);
    this.name = 'Deviation';
  }
}

/** A check that cannot run here (an option not given, a setup step refused): said, not counted as failed. */
export class Skip extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'Skip';
  }
}

/** What a decoupled initiation answered: where to poll and cancel, and how long to wait between polls. */
export interface DecoupledSession {
  readonly paymentId: string;
  readonly tokenHref: string;
  readonly cancelHref: string;
  readonly sleepTime: number;
}

/** What the flow's steps produce for the checks after them. */
export interface Facts {
  /** Client-credentials token, scope PIS (step 1). */
  clientToken: string;
  /** A Sweden v2 payment in ACTC and its initiation answer (step 2). */
  sePayment: string;
  seInitiation: Record<string, unknown>;
  /** A general-API payment, never executed: the code rules authorize it again and again. */
  generalPayment: string;
  generalInitiation: Record<string, unknown>;
  /** An authorization code of sePayment (step 3, redirect). */
  seCode: string;
  /** The PSU token of sePayment. */
  psuToken: string;
  /** The transactionStatus execution answered for sePayment (step 4). */
  executedStatus: string;
  decoupledSession: DecoupledSession;
  /** A decoupled PSU token and the payment it is for. */
  decoupledToken: { readonly token: string; readonly paymentId: string };
  basket: { readonly basketId: string; readonly product: string };
  basketToken: string;
  shortTermConsent: string;
  aisToken: string;
  aisConsent: string;
}

export type FactName = keyof Facts;

/** What a check runs with: the options, HTTP with bounded time, and the facts earlier checks provided. */
export interface CheckContext {
  readonly options: CheckOptions;
  /** Milliseconds left of the whole run's time. */
  remainingMs(): number;
  fact<K extends FactName>(name: K): Facts[K];
  provide<K extends FactName>(name: K, value: Facts[K]): void;
}

export interface Check {
  /** Stable, dotted: `area.case`. */
  readonly id: string;
  readonly title: string;
  /** Where the contract says so: the spec's row, step or rule with a short quote, or API-NOTES where the spec says "not shown". */
  readonly ref: string;
  readonly needs?: readonly FactName[];
  readonly provides?: readonly FactName[];
  /** Resolves when the answer conforms; throws Deviation (fail) or Skip. */
  run(context: CheckContext): Promise<void>;
}

export type Outcome = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly ref: string;
  readonly result: Outcome;
  /** Fail: what the contract wants and what came. */
  readonly expected?: string;
  readonly actual?: string;
  /** Skip: why it did not run. */
  readonly reason?: string;
  readonly ms: number;
}
