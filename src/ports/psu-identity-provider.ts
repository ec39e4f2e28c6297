// The port to the bank's own login for PSUs (an OpenID Connect provider, PSU_OIDC_*): the redirect
// flow sends the PSU's browser there instead of showing our login page, and the provider sends it back
// with proof of who logged in. The gateway keeps what a login must be checked against; the adapter
// decides what that is (OpenID Connect: state, nonce and the PKCE verifier).

/** A login begun at the provider. */
export interface ProviderLogin {
  /** Where the PSU's browser goes to log in. */
  readonly location: string;
  /** Comes back with the PSU (OAuth state): the gateway finds the login by it. Random, single-use. */
  readonly state: string;
  /** What the return must be checked against; the gateway keeps it unread and gives it back. */
  readonly checks: string;
}

export type ProviderLoginResult =
  | { readonly ok: true; readonly psuId: string }
  | {
      readonly ok: false;
      /**
       * denied: the provider says the PSU did not log in (error=access_denied, …); invalid: the answer
       * failed a check (code, ID token, nonce, the PSU id claim); unavailable: the provider did not answer,
       * or answered that it is down (server_error, temporarily_unavailable).
       */
      readonly reason: 'denied' | 'invalid' | 'unavailable';
      /** For the log only, never for the PSU or the TPP. */
      readonly detail: string;
    };

export interface PsuIdentityProvider {
  /** Begins a login whose answer comes back to returnUrl (registered at the provider). */
  begin(returnUrl: string): Promise<ProviderLogin>;
  /**
   * Checks what the PSU's browser brought back to returnUrl (the query of that request) against what
   * begin() said to keep, and answers the PSU's id.
   */
  complete(
    returnUrl: string,
    query: Readonly<Record<string, string>>,
    login: Pick<ProviderLogin, 'state' | 'checks'>,
  ): Promise<ProviderLoginResult>;
}
