// Account consents (README "Account information"): created with a client-credentials token of scope AIS,
// authorized by the PSU as scope `AIS:<consentId>`, then read, checked and deleted. Under /psd2/v1 by
// default; /psd2/gb/v1 and /psd2/lu/v1 for the British and Luxembourg accounts APIs.
import type { ConsentAnswer, ConsentRequest, ConsentStatusAnswer, ConsentView } from './answers.ts';
import type { HttpAnswer, HttpCaller } from './http.ts';

export interface ConsentOptions {
  /** Default `{"access": "ALL_ACCOUNTS"}`. */
  readonly body?: ConsentRequest;
  /** Default /psd2/v1. */
  readonly prefix?: string;
  /** E.g. PSU-ID: the PSU who is to approve (the sandbox's default is 191212121212). */
  readonly headers?: Record<string, string>;
  /** Sent as Idempotency-Key: a retry with the same key and body gets the first consent again. */
  readonly idempotencyKey?: string;
}

export class ConsentsApi {
  constructor(private readonly caller: HttpCaller) {}

  /** 201 with the consent awaiting authorization (200 from gateways before issue 40: see CREATED). */
  create(token: string, options: ConsentOptions = {}): Promise<HttpAnswer<ConsentAnswer>> {
    return this.caller.request<ConsentAnswer>('POST', `${options.prefix ?? '/psd2/v1'}/consents`, {
      headers: this.caller.tppHeaders(token, options.headers),
      json: options.body ?? { access: 'ALL_ACCOUNTS' },
      idempotencyKey: options.idempotencyKey,
    });
  }

  /** The consent, with the client-credentials token or the PSU's. */
  read(consentId: string, token: string, prefix = '/psd2/v1'): Promise<HttpAnswer<ConsentView>> {
    return this.caller.read<ConsentView>(`${prefix}/consents/${encodeURIComponent(consentId)}`, token);
  }

  status(consentId: string, token: string, prefix = '/psd2/v1'): Promise<HttpAnswer<ConsentStatusAnswer>> {
    return this.caller.read<ConsentStatusAnswer>(
      `${prefix}/consents/${encodeURIComponent(consentId)}/status`,
      token,
    );
  }

  /** 204: the consent is terminatedByTpp and its tokens read nothing more. */
  delete(consentId: string, token: string, prefix = '/psd2/v1'): Promise<HttpAnswer<unknown>> {
    return this.caller.request('DELETE', `${prefix}/consents/${encodeURIComponent(consentId)}`, {
      headers: this.caller.tppHeaders(token),
    });
  }
}
