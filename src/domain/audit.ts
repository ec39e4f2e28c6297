// What the audit trail records of a security-relevant event (issue 39): who did it (the actor, as far
// as it is known), to what, with what outcome, from where and under which correlation id. Never a
// token, a password or a one-time code: `detail` names reasons and statuses only.

/** Who acted, as far as the request tells: the TPP, its app and certificate, the PSU, the address. */
export interface AuditActor {
  readonly tppId?: string | null | undefined;
  readonly appId?: string | null | undefined;
  /** The SHA-256 thumbprint (hex) of the TLS client certificate. */
  readonly certificate?: string | null | undefined;
  readonly psuId?: string | null | undefined;
  readonly address?: string | null | undefined;
  /** TPP-Request-ID (X-Request-ID) as the request log has it, else the request's own id. */
  readonly correlationId?: string | null | undefined;
}

export interface AuditEvent extends AuditActor {
  /** `family.action`, e.g. `payment.initiated`, `token.issued`, `consent.revoked`. */
  readonly event: string;
  /** `ok`, `refused`, a status (`ACSC`), or a reason code. */
  readonly outcome: string;
  /** The payment, consent, app, TPP or certificate the event is about. */
  readonly resource?: string | null | undefined;
  readonly detail?: Readonly<Record<string, unknown>> | null | undefined;
}

/**
 * Who moved a payment's status, as its audit record names them (the transition trigger writes it,
 * store/transition-rule.ts): a TPP's call (`actor` is the request's: cancel, or execute with the
 * PSU's token), the PSU on the permission dashboard (`actor` has the PSU's address), or the gateway
 * itself, answering to no request (a future-dated payment booked on its date, a booking whose answer
 * was lost completed by the recovery).
 */
export type PaymentMover =
  | { readonly by: 'tpp' | 'psu'; readonly actor: AuditActor }
  | { readonly by: 'system' };

export const SYSTEM_MOVER: PaymentMover = { by: 'system' };
