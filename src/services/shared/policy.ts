// Everything that differs between the sandbox and live (DESIGN.md "Sandbox and live"), in one object
// chosen at start from MODE. Code asks the policy, never the mode. The sandbox's policy also carries
// its scenarios: what a dedicated test PSU makes happen (domain/scenarios.ts).
import { randomUUID } from 'node:crypto';
import type { Mode } from '../../config.ts';
import { MAX_EARLY_POLLS, MAX_POLLS } from '../../domain/eid.ts';
import { NO_SCENARIOS, NO_SETTLEMENTS, type ScenarioOf, type SettlementOf } from '../../domain/scenarios.ts';
import { newSandboxClientId } from '../../domain/secrets.ts';
import type { Authorizable } from './authorizables.ts';

/** How a decoupled session's polls are counted: too many in all, or too many early, end it. */
export interface Pacing {
  readonly maxPolls: number;
  readonly maxEarlyPolls: number;
}

export interface ModePolicy {
  readonly mode: Mode;
  /** Redirect flow: the sandbox approves at once (spec: "the code is returned at once"); live, the PSU logs in and approves on our pages. */
  readonly redirectApproval: 'at-once' | 'psu-login';
  /** Where the sandbox approves at once: why this PSU does not (a scenario), as an error_description. */
  redirectRefusal(psuId: string): string | undefined;
  /** The PSU who approves a resource that names none: a test PSU in the sandbox, where nobody logs in; live nobody. */
  fallbackPsu(resource: Authorizable): string | null;
  /** Authorization codes, in seconds: long enough to copy by hand in the sandbox, short live (RFC 9700). */
  readonly codeLifetimeSeconds: number;
  /** PSU access tokens expire after their lifetime (live); in the sandbox they report it and never expire. */
  readonly enforcePsuTokenExpiry: boolean;
  /** Decoupled: how the polls of the PSU's session are counted (live always; the sandbox for a scenario). */
  pacing(psuId: string): Pacing | undefined;
  /** Decoupled: cancelling ends the session and the e-ID order (live); the sandbox accepts it and does nothing (spec row 11). */
  readonly decoupledCancelEnds: boolean;
  /** What becomes of a consent right after this PSU approved it (a sandbox scenario). */
  consentAfterApproval(psuId: string): 'expires' | 'revoked' | undefined;
  /** The built-in ledger rejects what an account cannot pay (live); the sandbox books against generous balances. */
  readonly enforceFunds: boolean;
  /** The e-ID simulator completes an order at its first collect (sandbox), but for the scenario PSUs. */
  readonly instantEid: boolean;
  /** The PSUs with a scenario (none live). */
  readonly scenarioOf: ScenarioOf;
  /** The creditor accounts whose payments settle later, a scenario (none live). */
  readonly settlementOf: SettlementOf;
  /** A TPP may rehearse onboarding without a certificate (sandbox). */
  readonly onboardingWithoutCertificate: boolean;
  /** A new app's client id: a UUID with dashes live, without in the sandbox (spec "Sandbox and live"). */
  newClientId(): string;
  /** The schemes an app's redirect URI may use. */
  readonly redirectUriProtocols: readonly string[];
  /**
   * Where status notifications may go (issue 41): live, https on a host the app registered, never a
   * private, loopback or link-local address; the sandbox also http, any host and loopback.
   */
  readonly notificationTargets: NotificationTargets;
  /** PSU-IP-Address is required on calls the PSU makes (execute), live. */
  readonly requirePsuIpAddress: boolean;
  /** The sandbox's own routes (/sandbox/...) and its seeded app. */
  readonly sandboxTools: boolean;
  /** A client-credentials token of scope PIS, AIS or CBPII needs the role in the TPP's certificate (live). */
  readonly clientTokenNeedsRole: boolean;
  /** The e-ID simulator would face real PSUs: the start warns that it is no e-ID (live). */
  readonly warnOfSimulator: boolean;
  /** GET /metrics on the public listener (sandbox); live only on its own listener (METRICS_PORT). */
  readonly metricsOnPublicListener: boolean;
  /**
   * Strict-Transport-Security of the PSU's pages when served over HTTPS (live): a year, this host only
   * (includeSubDomains and preload would bind the bank's other hosts: the bank's own decision). The
   * sandbox sends none: a developer's https://localhost would stay HTTPS-only in the browser for a year.
   */
  readonly strictTransportSecurity: string | undefined;
}

/** The texts a PSU's refusal redirects with, as the live pages do. */
const REFUSALS = {
  declines: 'the PSU denied the authorization',
  expires: 'the authorization page expired',
} as const;

function sandboxPolicy(scenarioOf: ScenarioOf, settlementOf: SettlementOf): ModePolicy {
  return Object.freeze({
    mode: 'sandbox',
    redirectApproval: 'at-once',
    redirectRefusal: (psuId: string) => {
      const authorization = scenarioOf(psuId)?.authorization;
      return authorization === undefined ? undefined : REFUSALS[authorization];
    },
    fallbackPsu: (resource: Authorizable) => resource.sandboxPsu,
    codeLifetimeSeconds: 600,
    enforcePsuTokenExpiry: false,
    pacing: (psuId: string) => {
      const maxPolls = scenarioOf(psuId)?.maxPolls;
      return maxPolls === undefined ? undefined : { maxPolls, maxEarlyPolls: Number.POSITIVE_INFINITY };
    },
    decoupledCancelEnds: false,
    consentAfterApproval: (psuId: string) => scenarioOf(psuId)?.consent,
    enforceFunds: false,
    instantEid: true,
    scenarioOf,
    settlementOf,
    onboardingWithoutCertificate: true,
    newClientId: newSandboxClientId,
    redirectUriProtocols: Object.freeze(['https:', 'http:']),
    notificationTargets: Object.freeze({
      protocols: Object.freeze(['https:', 'http:']),
      registeredHostsOnly: false,
      loopback: true,
    }),
    requirePsuIpAddress: false,
    sandboxTools: true,
    clientTokenNeedsRole: false,
    warnOfSimulator: false,
    metricsOnPublicListener: true,
    strictTransportSecurity: undefined,
  });
}

const LIVE_PACING: Pacing = Object.freeze({ maxPolls: MAX_POLLS, maxEarlyPolls: MAX_EARLY_POLLS });

const livePolicy: ModePolicy = Object.freeze({
  mode: 'live',
  redirectApproval: 'psu-login',
  redirectRefusal: () => undefined,
  fallbackPsu: () => null,
  codeLifetimeSeconds: 60,
  enforcePsuTokenExpiry: true,
  pacing: () => LIVE_PACING,
  decoupledCancelEnds: true,
  consentAfterApproval: () => undefined,
  enforceFunds: true,
  instantEid: false,
  scenarioOf: NO_SCENARIOS,
  settlementOf: NO_SETTLEMENTS,
  onboardingWithoutCertificate: false,
  newClientId: () => randomUUID(),
  redirectUriProtocols: Object.freeze(['https:']),
  notificationTargets: Object.freeze({
    protocols: Object.freeze(['https:']),
    registeredHostsOnly: true,
    loopback: false,
  }),
  requirePsuIpAddress: true,
  sandboxTools: false,
  clientTokenNeedsRole: true,
  warnOfSimulator: true,
  metricsOnPublicListener: false,
  strictTransportSecurity: 'max-age=31536000',
});

/** Where a mode lets status notifications go. */
export interface NotificationTargets {
  readonly protocols: readonly string[];
  /** The URI's host must be one of the app's notificationHosts. */
  readonly registeredHostsOnly: boolean;
  /** Loopback addresses allowed (every other private range is refused in both modes). */
  readonly loopback: boolean;
}

export function policyFor(
  mode: Mode,
  scenarioOf: ScenarioOf = NO_SCENARIOS,
  settlementOf: SettlementOf = NO_SETTLEMENTS,
): ModePolicy {
  return mode === 'live' ? livePolicy : sandboxPolicy(scenarioOf, settlementOf);
}
