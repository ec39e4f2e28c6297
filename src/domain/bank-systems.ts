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

export function isSystemUnavailable(error: unknown): error is SystemUnavailable {
  return error instanceof SystemUnavailable;
}
