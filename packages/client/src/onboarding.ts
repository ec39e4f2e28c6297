// Onboarding (spec rows 2-5, Authentication rule 2): enroll the TPP (its certificate in TLS live; none
// in the sandbox), a PSD2-ADMIN token for the TPP id, then an app with its first product, and further
// products one per request. The app id answered is the client id of every later call.
import type {
  AppRegistration,
  SubscriptionAnswer,
  SubscriptionRequest,
  ThirdPartyAnswer,
  TokenAnswer,
} from './answers.ts';
import type { HttpAnswer, HttpCaller } from './http.ts';

const THIRD_PARTIES = '/psd2/v1/third-parties';
const SUBSCRIPTIONS = '/psd2/v1/subscriptions';

export class OnboardingApi {
  constructor(private readonly caller: HttpCaller) {}

  /** POST /psd2/v1/third-parties: 201 with the new TPP id, 200 with the id of a TPP enrolled already. */
  enroll(): Promise<HttpAnswer<ThirdPartyAnswer>> {
    return this.caller.request<ThirdPartyAnswer>('POST', THIRD_PARTIES, {
      headers: this.caller.requestIds(),
    });
  }

  /** PUT /psd2/v1/third-parties: adds the certificate used in TLS (base64 DER, no white space). */
  addCertificate(clientCertificate: string): Promise<HttpAnswer<ThirdPartyAnswer>> {
    return this.caller.request<ThirdPartyAnswer>('PUT', THIRD_PARTIES, {
      headers: this.caller.requestIds(),
      json: { clientCertificate },
    });
  }

  /** The TPP's client-credentials token of scope PSD2-ADMIN (7776000 s). */
  adminToken(tppId: string): Promise<HttpAnswer<TokenAnswer>> {
    return this.caller.token<TokenAnswer>({
      grant_type: 'client_credentials',
      scope: 'PSD2-ADMIN',
      client_id: tppId,
    });
  }

  /** Registers an app (one redirect URI) subscribed to its first product: the answer names its app id. */
  registerApp(
    tppId: string,
    adminToken: string,
    app: AppRegistration,
    product: string,
  ): Promise<HttpAnswer<SubscriptionAnswer>> {
    return this.subscribeWith(tppId, adminToken, { app, product: { name: product } });
  }

  /** Subscribes an app of the TPP to one more product. */
  subscribe(
    tppId: string,
    adminToken: string,
    clientId: string,
    product: string,
  ): Promise<HttpAnswer<SubscriptionAnswer>> {
    return this.subscribeWith(tppId, adminToken, { clientId, product: { name: product } });
  }

  private subscribeWith(tppId: string, adminToken: string, body: SubscriptionRequest) {
    return this.caller.request<SubscriptionAnswer>('POST', SUBSCRIPTIONS, {
      headers: {
        ...this.caller.requestIds(),
        'X-Gateway-Client-Id': tppId,
        Authorization: `Bearer ${adminToken}`,
      },
      json: body,
    });
  }
}
