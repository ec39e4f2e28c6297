// Swedish signing baskets (API-NOTES "Paths and prefixes", spec rule 2): several payments initiated
// together, authorized once with the basket id as the scope (`PIS:<signingBaskedId>`, redirect or
// decoupled), and executed together with that id in the place of a payment id.
import type { BasketAnswer, BasketPayment, ExecuteAnswer } from './answers.ts';
import type { HttpAnswer, HttpCaller } from './http.ts';

export const BASKET_PATH = '/psd2/se/v2/payments/private/signing-basket';

export class BasketsApi {
  constructor(private readonly caller: HttpCaller) {}

  /** Initiates the basket with a client-credentials token (scope PIS); a retry carries the same idempotencyKey. */
  initiate(
    token: string,
    payments: readonly BasketPayment[],
    headers: Record<string, string> = {},
    options: { readonly idempotencyKey?: string } = {},
  ): Promise<HttpAnswer<BasketAnswer>> {
    return this.caller.request<BasketAnswer>('POST', BASKET_PATH, {
      headers: this.caller.tppHeaders(token, headers),
      json: { payments },
      idempotencyKey: options.idempotencyKey,
    });
  }

  /**
   * Executes every payment of the basket with the PSU's token. The path names a product the basket
   * holds (e.g. `sek-credit-transfer`); the answer, the basket's status.
   */
  execute(
    product: string,
    basketId: string,
    psuToken: string,
    prefix = '/psd2/v1/payments',
  ): Promise<HttpAnswer<ExecuteAnswer>> {
    return this.caller.request<ExecuteAnswer>('PUT', `${prefix}/${product}/${basketId}`, {
      headers: this.caller.tppHeaders(psuToken),
    });
  }
}
