// A TPP's certificate (QWAC or UK OBWAC) as the gateway sees it: the organizationIdentifier, the PSD2
// roles and the competent authority. Reading one (qwac-reader.ts, with the X.509 and ASN.1 libraries)
// is loaded only where certificates are read: under TLS, and when a certificate is sent in a body.

import type { QwacResult } from './qwac-types.ts';

// The types live in qwac-types.ts, which both this file and the reader import: the reader must not
// import this file back, or the lazy import below would close a circle.
export type { PeerIdentity, Qwac } from './qwac-types.ts';

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
