// The typed TPP client over mutual TLS, as a TPP calls a live gateway: its QWAC on every request, the
// gateway's issuer trusted (fetch takes neither, so requests go through node:https).
import { TppClient } from '@psd2-gateway/client';
import { type ClientCertificate, tlsFetch } from './tls.ts';

export class MtlsTppClient extends TppClient {
  constructor(
    baseUrl: string,
    clientId: string,
    redirectUri: string,
    private readonly tls: { readonly ca: string; readonly client: ClientCertificate },
  ) {
    super(baseUrl, clientId, redirectUri);
  }

  /** The same TPP's certificate, acting as another of its apps (or as the TPP, by its id). */
  as(clientId: string): MtlsTppClient {
    return new MtlsTppClient(this.baseUrl, clientId, this.redirectUri, this.tls);
  }

  protected override send(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string | undefined },
  ) {
    return tlsFetch(url, {
      method: init.method,
      ca: this.tls.ca,
      client: this.tls.client,
      headers: init.headers,
      ...(init.body === undefined ? {} : { body: init.body }),
    });
  }
}
