// The OpenID Connect adapter (src/adapters/openid-psu-login.ts) against node-oidc-provider: the PSU the
// ID token (or userinfo) names, and every check of the answer (state, nonce, PKCE, the provider's
// errors, discovery).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { openIdPsuLogin } from '../../src/adapters/openid-psu-login.ts';
import type { PsuIdentityProvider } from '../../src/ports/psu-identity-provider.ts';
import { Agent, PROVIDER_ACCOUNTS, queryOf, settingsOf } from '../helpers/oidc.ts';
import { refusedPort } from '../helpers/ports.ts';
import { type StandInProvider, startOidcProvider } from '../stand-ins/oidc-provider.ts';

const TOLVAN = '191212121212';

describe('the OpenID Connect adapter', () => {
  const RETURN_URL = 'http://127.0.0.1:9/psu/oidc/callback';
  let provider: StandInProvider;
  let login: PsuIdentityProvider;
  before(async () => {
    provider = await startOidcProvider(PROVIDER_ACCOUNTS);
    await provider.registerClient(RETURN_URL);
    login = await openIdPsuLogin(settingsOf(provider));
  });
  after(() => provider?.close());

  /** Begins a login and logs in at the provider; answers what came back to RETURN_URL. */
  async function returned(account: string) {
    const begun = await login.begin(RETURN_URL);
    const agent = new Agent();
    const page = await agent.go(begun.location);
    const back = await agent.go(page.url, {
      form: { account },
      stop: (url) => url.href.startsWith(RETURN_URL),
    });
    return { begun, query: queryOf(back.url) };
  }

  test('answers the PSU the ID token names', async () => {
    const { begun, query } = await returned('tolvan');
    assert.deepEqual(await login.complete(RETURN_URL, query, begun), { ok: true, psuId: TOLVAN });
  });

  test("an ID token whose nonce is not the login's is refused", async () => {
    const { begun, query } = await returned('tolvan');
    const other = await login.begin(RETURN_URL);
    // The same PKCE verifier (the code exchange succeeds) and another login's nonce.
    const checks = JSON.stringify({
      ...JSON.parse(begun.checks),
      nonce: JSON.parse(other.checks).nonce,
    });
    const result = await login.complete(RETURN_URL, query, { state: begun.state, checks });
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.reason, 'invalid');
    assert.match(!result.ok ? result.detail : '', /nonce/);
  });

  test("another login's PKCE verifier or state is refused", async () => {
    const { begun, query } = await returned('tolvan');
    const other = await login.begin(RETURN_URL);
    const wrongVerifier = await login.complete(RETURN_URL, query, {
      state: begun.state,
      checks: other.checks,
    });
    assert.deepEqual([wrongVerifier.ok, !wrongVerifier.ok && wrongVerifier.reason], [false, 'invalid']);
    const second = await returned('tolvan');
    const wrongState = await login.complete(RETURN_URL, second.query, {
      state: other.state,
      checks: second.begun.checks,
    });
    assert.deepEqual([wrongState.ok, !wrongState.ok && wrongState.reason], [false, 'invalid']);
  });

  test("the provider's own errors: an outage is unavailable, anything else denied", async () => {
    const answers: Record<string, string> = {};
    for (const error of ['access_denied', 'login_required', 'server_error', 'temporarily_unavailable']) {
      const begun = await login.begin(RETURN_URL);
      const result = await login.complete(
        RETURN_URL,
        { error, state: begun.state, iss: provider.issuer },
        begun,
      );
      answers[error] = result.ok ? 'ok' : `${result.reason}: ${result.detail}`;
    }
    assert.deepEqual(answers, {
      access_denied: 'denied: the provider answered error=access_denied',
      login_required: 'denied: the provider answered error=login_required',
      server_error: 'unavailable: the provider answered error=server_error',
      temporarily_unavailable: 'unavailable: the provider answered error=temporarily_unavailable',
    });
  });

  test('a provider that cannot be discovered: an Error naming PSU_OIDC_ISSUER', async () => {
    const port = await refusedPort();
    await assert.rejects(
      openIdPsuLogin({ ...settingsOf(provider), issuer: `http://127.0.0.1:${port}` }),
      new RegExp(`^Error: PSU_OIDC_ISSUER http://127\\.0\\.0\\.1:${port}/: OpenID Connect discovery failed`),
    );
    const notFound = createServer((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => notFound.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(notFound.address() as AddressInfo).port}`;
    try {
      await assert.rejects(openIdPsuLogin({ ...settingsOf(provider), issuer }), (error: Error) => {
        assert.match(
          error.message,
          /^PSU_OIDC_ISSUER http:\/\/127\.0\.0\.1:\d+\/: OpenID Connect discovery failed/,
        );
        return true;
      });
    } finally {
      await new Promise((resolve) => notFound.close(resolve));
    }
  });

  test('an http issuer that is not on this machine is refused before any request', async () => {
    await assert.rejects(
      openIdPsuLogin({ ...settingsOf(provider), issuer: 'http://login.bank.example' }),
      /^Error: PSU_OIDC_ISSUER http:\/\/login\.bank\.example\/: the provider must be reached over https$/,
    );
  });
});
