// A stand-in for the bank's OpenID Connect provider: node-oidc-provider itself on loopback (port 0,
// http issuer; named localhost where a test needs it on another site than the gateway), with one confidential client (client_secret_basic, PKCE required) whose redirect URI
// is registered once the gateway listens, accounts whose claims carry a personal number, a minimal
// login page of its own (an account name, or cancel: error=access_denied), and no consent screen (the
// bank's own client, as a first-party app would be).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type OidcContext } from 'oidc-provider';
// Its own in-memory store, given explicitly: the provider then does not warn that it uses one.
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';

/** An account at the provider: its claims, and those only the userinfo endpoint answers. */
export interface ProviderAccount {
  readonly claims: Readonly<Record<string, string>>;
  readonly userinfoOnly?: Readonly<Record<string, string>>;
}

export interface StandInProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Registers the client with its redirect URIs (the gateway's callbacks, known once it listens). */
  registerClient(...redirectUris: string[]): Promise<void>;
  /**
   * Stops answering, as a provider that went down, but keeps its port: each connection, open or new, is
   * closed before a byte is answered. Closing the server instead would free the port for another test's
   * server (tests run in parallel), which would then answer in the provider's place.
   */
  stopAnswering(): void;
  close(): Promise<void>;
}

export async function startOidcProvider(
  accounts: Readonly<Record<string, ProviderAccount>>,
  options: { readonly hostName?: '127.0.0.1' | 'localhost' } = {},
): Promise<StandInProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://${options.hostName ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  const clientId = 'psd2-gateway';
  const clientSecret = randomBytes(32).toString('base64url');
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const claimNames = [
    ...new Set(Object.values(accounts).flatMap((a) => Object.keys({ ...a.claims, ...a.userinfoOnly }))),
  ];
  const provider = new Provider(issuer, {
    adapter: createMemoryAdapter(),
    jwks: { keys: [{ ...signingKey, kid: 'stand-in', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    pkce: { required: () => true },
    claims: { openid: ['sub', ...claimNames] },
    // Claims of the granted scopes in the ID token too, as the banks' providers put a personal number.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts[id];
      if (account === undefined) return undefined;
      return {
        accountId: id,
        claims: (use: string) => ({
          sub: id,
          ...account.claims,
          ...(use === 'userinfo' ? account.userinfoOnly : {}),
        }),
      };
    },
    // No consent screen: the grant the bank's own client needs is given at login.
    loadExistingGrant: async (ctx: OidcContext) => {
      const existing =
        ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (existing !== undefined) return provider.Grant.find(existing);
      const grant = new provider.Grant({
        accountId: ctx.oidc.session.accountId,
        clientId: ctx.oidc.client.clientId,
      });
      grant.addOIDCScope('openid');
      grant.addOIDCClaims(['sub', ...claimNames]);
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();
  let answering = true;
  server.on('connection', (socket) => {
    if (!answering) socket.destroy();
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', issuer).pathname;
    if (!path.startsWith('/interaction/')) return handle(request, response);
    interaction(provider, accounts, request, response).catch((error: Error) => {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(error.message);
    });
  });
  return {
    issuer,
    clientId,
    clientSecret,
    registerClient: (...redirectUris) =>
      provider.Client.adapter.upsert(clientId, {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    stopAnswering: () => {
      answering = false;
      server.closeAllConnections();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The provider's login page: GET shows it, POST logs in (or not), POST …/abort cancels. */
async function interaction(
  provider: Provider,
  accounts: Readonly<Record<string, ProviderAccount>>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { uid } = await provider.interactionDetails(request, response);
  if (request.method === 'GET') return loginPage(response, uid, undefined);
  if (request.url?.endsWith('/abort')) {
    return provider.interactionFinished(request, response, {
      error: 'access_denied',
      error_description: 'End-User aborted interaction',
    });
  }
  let body = '';
  for await (const chunk of request) body += chunk;
  const account = new URLSearchParams(body).get('account') ?? '';
  if (accounts[account] === undefined) return loginPage(response, uid, 'No such account');
  return provider.interactionFinished(
    request,
    response,
    { login: { accountId: account } },
    { mergeWithLastSubmission: false },
  );
}

function loginPage(response: ServerResponse, uid: string, error: string | undefined): void {
  response.writeHead(error === undefined ? 200 : 401, { 'content-type': 'text/html; charset=utf-8' }).end(
    `<!doctype html><html><head><title>Bank login</title></head><body><h1>Bank login</h1>${
      error === undefined ? '' : `<p role="alert">${error}</p>`
    }<form method="post" action="/interaction/${uid}"><input id="account" name="account">
<button id="sign-in" type="submit">Sign in</button></form>
<form method="post" action="/interaction/${uid}/abort"><button id="cancel" type="submit">Cancel</button></form></body></html>`,
  );
}
