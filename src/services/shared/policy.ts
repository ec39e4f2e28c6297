// Everything that differs between the sandbox and live (DESIGN.md "Sandbox and live"), in one object
// chosen at start from MODE. Code asks the policy, never the mode.
import { randomUUID } from 'node:crypto';
import type { Mode } from '../../config.ts';
import { newSandboxClientId } from '../../domain/secrets.ts';
import type { Authorizable } from './authorizables.ts';

export interface ModePolicy {
  readonly mode: Mode;
  /** Redirect flow: the sandbox approves at once (spec: "the code is returned at once"); live, the PSU logs in and approves on our pages. */
  readonly redirectApproval: 'at-once' | 'psu-login';
  /** The PSU who approves a resource that names none: a test PSU in the sandbox, where nobody logs in; live nobody. */
  fallbackPsu(resource: Authorizable): string | null;
  /** Authorization codes, in seconds: long enough to copy by hand in the sandbox, short live (RFC 9700). */
  readonly codeLifetimeSeconds: number;
  /** PSU access tokens expire after their lifetime (live); in the sandbox they report it and never expire. */
  readonly enforcePsuTokenExpiry: boolean;
  /** Decoupled: polls sooner than sleep_time are counted and too many end the session (live). */
  readonly paceDecoupledPolls: boolean;
  /** Decoupled: cancelling ends the session and the e-ID order (live); the sandbox accepts it and does nothing (spec row 11). */
  readonly decoupledCancelEnds: boolean;
  /** The built-in ledger rejects what an account cannot pay (live); the sandbox books against generous balances. */
  readonly enforceFunds: boolean;
  /** The e-ID simulator completes an order at its first collect (sandbox). */
  readonly instantEid: boolean;
  /** A TPP may rehearse onboarding without a certificate (sandbox). */
  readonly onboardingWithoutCertificate: boolean;
  /** A new app's client id: a UUID with dashes live, without in the sandbox (spec "Sandbox and live"). */
  newClientId(): string;
  /** The schemes an app's redirect URI may use. */
  readonly redirectUriProtocols: readonly string[];
  /** PSU-IP-Address is required on calls the PSU makes (execute), live. */
  readonly requirePsuIpAddress: boolean;
  /** The sandbox's own routes (/sandbox/...) and its seeded app. */
  readonly sandboxTools: boolean;
}

export const sandboxPolicy: ModePolicy = Object.freeze({
  mode: 'sandbox',
  redirectApproval: 'at-once',
  fallbackPsu: (resource: Authorizable) => resource.sandboxPsu,
  codeLifetimeSeconds: 600,
  enforcePsuTokenExpiry: false,
  paceDecoupledPolls: false,
  decoupledCancelEnds: false,
  enforceFunds: false,
  instantEid: true,
  onboardingWithoutCertificate: true,
  newClientId: newSandboxClientId,
  redirectUriProtocols: Object.freeze(['https:', 'http:']),
  requirePsuIpAddress: false,
  sandboxTools: true,
});

export const livePolicy: ModePolicy = Object.freeze({
  mode: 'live',
  redirectApproval: 'psu-login',
  fallbackPsu: () => null,
  codeLifetimeSeconds: 60,
  enforcePsuTokenExpiry: true,
  paceDecoupledPolls: true,
  decoupledCancelEnds: true,
  enforceFunds: true,
  instantEid: false,
  onboardingWithoutCertificate: false,
  newClientId: () => randomUUID(),
  redirectUriProtocols: Object.freeze(['https:']),
  requirePsuIpAddress: true,
  sandboxTools: false,
});

export function policyFor(mode: Mode): ModePolicy {
  return mode === 'live' ? livePolicy : sandboxPolicy;
}
