// The parameters of a token request and the checks every grant shares.

import type { PeerIdentity } from '../../../certificates/qwac.ts';
import type { App } from '../../../domain/apps.ts';
import { OAuthError } from '../../../domain/errors.ts';
import { appOf } from '../../access/apps.ts';
import { registeredCertificate } from '../../access/live-access.ts';
import type { ServiceContext } from '../../shared/context.ts';

export type TokenParameters = Readonly<Record<string, string>>;

export function required(parameters: TokenParameters, name: string): string {
  const value = parameters[name];
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

export interface AuthenticatedClient {
  readonly app: App;
  /** The certificate the tokens are bound to (RFC 8705), under mutual TLS. */
  readonly thumbprint: string | null;
}

/**
 * The client named by client_id. In the sandbox the app id identifies the client (the contract has
 * no client secret); under mutual TLS the presented certificate must be one of the app's TPP.
 */
export async function authenticateClient(
  context: ServiceContext,
  parameters: TokenParameters,
  peer: PeerIdentity = { kind: 'none' },
): Promise<AuthenticatedClient> {
  const clientId = required(parameters, 'client_id');
  const app = await appOf(context, clientId);
  if (app === undefined) throw new OAuthError('invalid_client', 'client authentication failed');
  if (!context.mtls) return { app, thumbprint: null };
  const certificate = await registeredCertificate(context, peer);
  if (certificate === undefined || app.tppId !== certificate.tppId) {
    throw new OAuthError('invalid_client', 'client authentication failed');
  }
  return { app, thumbprint: certificate.thumbprint };
}
