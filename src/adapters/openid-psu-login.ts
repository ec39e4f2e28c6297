// The PSU's login at the bank's OpenID Connect provider (PSU_OIDC_*): authorization code with PKCE
// (S256), state and nonce, through openid-client. openid-client checks the answer: state, the iss
// parameter where the provider sends it, the code exchange (client_secret_basic, else _post, as the
// provider lists them) and the ID token (issuer, audience, nonce, expiry). The PSU id is a claim of the
// ID token, else of the userinfo answer (providers that put extra claims only there).
// The ID token comes from the token endpoint over the provider's TLS: its signature is not checked
// again (OpenID Connect Core 3.1.3.7).
import * as openid from 'openid-client';
import { SystemUnavailable } from '../domain/bank-systems.ts';
import type { ProviderLoginResult, PsuIdentityProvider } from '../ports/psu-identity-provider.ts';

export interface OpenIdPsuLoginSettings {
  /** The provider's issuer identifier; discovery reads <issuer>/.well-known/openid-configuration. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The claim that carries the PSU id (e.g. a personal number). */
  readonly idClaim: string;
}

export interface OpenIdPsuLoginOptions {
  /** How long one call to the provider may take, in seconds (discovery, token, userinfo). */
  readonly timeoutSeconds?: number;
}

/** A provider that answered is not asked again before a login for this long, ms. */
const ANSWERED_FOR_MS = 10_000;

export interface OpenIdPsuLogin extends PsuIdentityProvider {
  /**
   * Whether the provider answers (health, readiness, and before a PSU is sent there): its discovery
   * document. Rejects with SystemUnavailable when it does not answer or answers 5xx.
   */
  probe(): Promise<void>;
}

/** What a login keeps between begin() and complete(). */
interface Checks {
  readonly nonce: string;
  readonly verifier: string;
}

/**
 * Discovers the provider (at start: an operator learns of a wrong issuer at once, not at the first
 * PSU's login) and answers the adapter. Throws an Error that names PSU_OIDC_ISSUER when the provider
 * cannot be discovered or cannot do what the login needs.
 */
export async function openIdPsuLogin(
  settings: OpenIdPsuLoginSettings,
  options: OpenIdPsuLoginOptions = {},
): Promise<OpenIdPsuLogin> {
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  const configuration = await discover(settings, timeoutSeconds);
  const discoveryUrl = `${settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let answeredAt = Number.NEGATIVE_INFINITY;
  async function probe(): Promise<void> {
    let response: Response;
    try {
      response = await fetch(discoveryUrl, {
        signal: AbortSignal.timeout(timeoutSeconds * 1000),
        redirect: 'manual',
      });
    } catch (error) {
      throw new SystemUnavailable('psuLogin', `the provider did not answer: ${reason(error)}`, {
        cause: error,
      });
    }
    await response.body?.cancel();
    if (response.status >= 500)
      throw new SystemUnavailable('psuLogin', `the provider answered ${response.status}`);
    answeredAt = performance.now();
  }
  return {
    probe,
    async begin(returnUrl) {
      // The PSU is not sent to a provider that does not answer: the gateway tells the PSU itself.
      if (performance.now() - answeredAt > ANSWERED_FOR_MS) await probe();
      const state = openid.randomState();
      const nonce = openid.randomNonce();
      const verifier = openid.randomPKCECodeVerifier();
      const location = openid.buildAuthorizationUrl(configuration, {
        redirect_uri: returnUrl,
        response_type: 'code',
        scope: 'openid',
        state,
        nonce,
        code_challenge: await openid.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        // Strong customer authentication for this payment: no single sign-on from an earlier session.
        prompt: 'login',
      });
      const checks: Checks = { nonce, verifier };
      return { location: location.href, state, checks: JSON.stringify(checks) };
    },
    async complete(returnUrl, query, login) {
      const checks = JSON.parse(login.checks) as Checks;
      const current = new URL(returnUrl);
      for (const [name, value] of Object.entries(query)) current.searchParams.set(name, value);
      try {
        const tokens = await openid.authorizationCodeGrant(configuration, current, {
          expectedState: login.state,
          expectedNonce: checks.nonce,
          pkceCodeVerifier: checks.verifier,
        });
        const claims = tokens.claims()!;
        let psuId = claims[settings.idClaim];
        if (psuId === undefined && configuration.serverMetadata().userinfo_endpoint !== undefined) {
          psuId = (await openid.fetchUserInfo(configuration, tokens.access_token, claims.sub))[
            settings.idClaim
          ];
        }
        if (typeof psuId !== 'string' || psuId === '') {
          return { ok: false, reason: 'invalid', detail: `no ${settings.idClaim} claim names the PSU` };
        }
        return { ok: true, psuId };
      } catch (error) {
        return failure(error);
      }
    },
  };
}

async function discover(settings: OpenIdPsuLoginSettings, timeout: number): Promise<openid.Configuration> {
  const issuer = new URL(settings.issuer);
  // Plain HTTP only to a provider on this machine (tests, a local proxy).
  const insecure = issuer.protocol === 'http:';
  if (insecure && !['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname)) {
    throw new Error(`PSU_OIDC_ISSUER ${issuer.href}: the provider must be reached over https`);
  }
  let discovered: openid.Configuration;
  try {
    discovered = await openid.discovery(issuer, settings.clientId, undefined, undefined, {
      timeout,
      ...(insecure ? { execute: [openid.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    throw new Error(`PSU_OIDC_ISSUER ${issuer.href}: OpenID Connect discovery failed: ${reason(error)}`, {
      cause: error,
    });
  }
  const metadata = discovered.serverMetadata();
  const unable = (what: string) => new Error(`PSU_OIDC_ISSUER ${issuer.href}: the provider ${what}`);
  if (metadata.authorization_endpoint === undefined || metadata.token_endpoint === undefined)
    throw unable('lists no authorization or token endpoint');
  if (metadata.response_types_supported?.includes('code') === false)
    throw unable('does not answer with an authorization code (response_types_supported)');
  if (metadata.code_challenge_methods_supported?.includes('S256') === false)
    throw unable('does not support PKCE with S256 (code_challenge_methods_supported)');
  // RFC 8414: a provider that lists no methods takes client_secret_basic.
  const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const authentication = methods.includes('client_secret_basic')
    ? openid.ClientSecretBasic(settings.clientSecret)
    : methods.includes('client_secret_post')
      ? openid.ClientSecretPost(settings.clientSecret)
      : undefined;
  if (authentication === undefined)
    throw unable('takes neither client_secret_basic nor client_secret_post at its token endpoint');
  const configuration = new openid.Configuration(metadata, settings.clientId, undefined, authentication);
  configuration.timeout = timeout;
  if (insecure) openid.allowInsecureRequests(configuration);
  return configuration;
}

/** Sorts a failed return: the provider's own error, a provider that did not answer, or a failed check. */
function failure(error: unknown): Extract<ProviderLoginResult, { ok: false }> {
  if (error instanceof openid.AuthorizationResponseError) {
    // RFC 6749 4.1.2.1: these two say the provider is down, not that the PSU did not log in.
    const down = error.error === 'temporarily_unavailable' || error.error === 'server_error';
    return {
      ok: false,
      reason: down ? 'unavailable' : 'denied',
      detail: `the provider answered error=${error.error}`,
    };
  }
  const serverError =
    (error instanceof openid.ResponseBodyError && error.status >= 500) ||
    (error instanceof openid.ClientError &&
      (error.code === 'OAUTH_TIMEOUT' ||
        (error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' &&
          error.cause instanceof Response &&
          error.cause.status >= 500)));
  // fetch rejects with a TypeError (no code) when the provider cannot be reached.
  const unreachable = error instanceof TypeError && !('code' in error);
  if (serverError || unreachable) return { ok: false, reason: 'unavailable', detail: reason(error) };
  return { ok: false, reason: 'invalid', detail: reason(error) };
}

function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const code = 'code' in error && typeof error.code === 'string' ? ` (${error.code})` : '';
  return `${error.message}${code}${cause}`;
}
