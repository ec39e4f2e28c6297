// Consents: the Swedish short-term consent (PIS-scoped, a few reads) and account consents (AIS-scoped,
// valid until a date, a daily frequency of reads without the PSU present).

export type ConsentKind = 'short-term' | 'accounts' | 'accounts-gb' | 'accounts-lu';
export type ConsentStatus =
  | 'received'
  | 'valid'
  | 'rejected'
  | 'expired'
  | 'terminatedByTpp'
  | 'revokedByPsu';

export interface Consent {
  readonly consentId: string;
  readonly clientId: string;
  readonly kind: ConsentKind;
  readonly access: 'ALL_ACCOUNTS';
  readonly status: ConsentStatus;
  /** The PSU who approved it (set on approval). */
  readonly psuId: string | null;
  /** The end of its validity: an account consent's date, a short-term consent's minutes after approval. */
  readonly validUntil: Date | null;
  /** Short-term consents: reads left. */
  readonly readsLeft: number | null;
  readonly createdAt: Date;
  /** Account consents: reads a day per resource without the PSU present. */
  readonly frequencyPerDay: number | null;
  /** The PSU the TPP named at creation (PSU-ID): only that PSU may approve. */
  readonly requestedPsuId: string | null;
  readonly terminatedAt: Date | null;
}
