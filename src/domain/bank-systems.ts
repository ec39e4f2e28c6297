// The systems the gateway depends on, by name, and the one error that says one of them cannot answer
// now (refused the connection, did not answer in time, answered 5xx). Adapters throw it (or a subclass
// of it); http/errors.ts answers it as a 503 with Retry-After, never a 500.

export const SYSTEM_NAMES = ['database', 'redis', 'coreBanking', 'eid', 'psuLogin', 'rates'] as const;

export type SystemName = (typeof SYSTEM_NAMES)[number];

/** How the TPP or the PSU is told which system it is: words, no address or internal detail. */
export const SYSTEM_TITLES: Readonly<Record<SystemName, string>> = {
  database: "The gateway's database",
  redis: 'The rate limits’ shared store',
  coreBanking: "The bank's core banking system",
  eid: 'The e-ID service',
  psuLogin: "The bank's login",
  rates: 'The exchange-rate source',
};

/** A system the call needs cannot answer now; the caller may try again later. The message is for the log. */
export class SystemUnavailable extends Error {
  constructor(
    readonly system: SystemName,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SystemUnavailable';
  }
}

/** How a system is asked whether it answers (health, readiness, the start's log). */
export interface SystemProbe {
  readonly system: SystemName;
  /** Where it is, for the operator (a URL or a file; never a secret). */
  readonly where: string;
  /** Readiness depends on it: without it the gateway cannot serve its main calls. */
  readonly required: boolean;
  /** Resolves when the system answers; rejects (SystemUnavailable, or any error) when it does not. */
  probe(): Promise<void>;
}
