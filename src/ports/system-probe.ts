// How a system the gateway depends on is asked whether it answers (health, readiness, the start's log):
// each adapter of a bank's own system gives one (systems.ts); the type is the domain's.
export type { SystemProbe } from '../domain/bank-systems.ts';
