// A TPP's certificate (QWAC or UK OBWAC) as the gateway sees it: the organizationIdentifier, the PSD2
// roles and the competent authority. Reading one (qwac-reader.ts, with the X.509 and ASN.1 libraries)
// is loaded only where certificates are read: under TLS, and when a certificate is sent in a body.

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
    }
  | { readonly kind: 'qwac'; readonly qwac: Qwac };

export type QwacResult =
  | { readonly ok: true; readonly qwac: Qwac }
  | { readonly ok: false; readonly reason: string };

type Reader = (der: Uint8Array) => QwacResult;

let loading: Promise<Reader> | undefined;
let loaded: Reader | undefined;

/** The certificate reader, loaded on first use (a tenth of a second the sandbox need not spend). */
export function loadQwacReader(): Promise<Reader> {
  loading ??= import('./qwac-reader.ts').then((module) => {
    loaded = module.readQwac;
    return loaded;
  });
  return loading;
}

/** The certificate reader where it was loaded (app.ts loads it when the server speaks TLS). */
export function qwacReader(): Reader {
  if (loaded === undefined) throw new Error('the certificate reader is not loaded: loadQwacReader() first');
  return loaded;
}
