// Swedish signing baskets (API-NOTES "Paths and prefixes", spec rule 2): several payments initiated
// together, authorized once with the basket id as the scope (`PIS:<signingBaskedId>`, redirect or
// decoupled), and executed together with that id in the place of a payment id.
import type { BasketAnswer, BasketExecuteAnswer, BasketPayment } from './answers.ts';
import type { HttpAnswer, HttpCaller } from './http.ts';

export const BASKET_PATH = '/psd2/se/v2/payments/private/signing-basket';

export class BasketsApi {
  constructor(private readonly caller: HttpCaller) {}

  /** Initiates the basket with a client-credentials token (scope PIS). */
  initiate(
    token: string,
    payments: readonly BasketPayment[],
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer<BasketAnswer>> {
    return this.caller.request<BasketAnswer>('POST', BASKET_PATH, {
      headers: this.caller.tppHeaders(token, headers),
      json: { payments },
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
  ): Promise<HttpAnswer<BasketExecuteAnswer>> {
    return this.caller.request<BasketExecuteAnswer>('PUT', `${prefix}/${product}/${basketId}`, {
      headers: this.caller.tppHeaders(psuToken),
    });
  }
}
