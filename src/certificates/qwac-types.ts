// A TPP's certificate (QWAC or UK OBWAC) as the gateway sees it, and what reading one answers: the
// words both the lazy loader (qwac.ts) and the reader (qwac-reader.ts) speak.
import type { PspRole, TppScope } from '../domain/psp-roles.ts';

export interface Qwac {
  /** PSDSE-FINA-44059 */
  readonly organizationIdentifier: string;
  /** SE-FINA-44059: the id we hand out. */
  readonly tppId: string;
  readonly organizationName: string;
  readonly roles: readonly PspRole[];
  readonly scopes: readonly TppScope[];
  readonly ncaName: string;
  readonly ncaId: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** SHA-256 of the DER, hex: what tokens issued over this certificate are bound to (RFC 8705). */
  readonly thumbprint: string;
  /** Base64 DER, no line breaks: what PUT /third-parties compares with. */
  readonly base64: string;
}

/** What a connection's client certificate says of the TPP. */
export type PeerIdentity =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'refused';
      readonly code: 'CERTIFICATE_INVALID' | 'CERTIFICATE_EXPIRED';
      readonly text: string;
      /** SHA-256 of the DER, hex, as a Qwac's: the audit trail names the certificate it refused. */
      readonly thumbprint: string;
    }
  | { readonly kind: 'qwac'; readonly qwac: Qwac };

export type QwacResult =
  | { readonly ok: true; readonly qwac: Qwac }
  | { readonly ok: false; readonly reason: string };
