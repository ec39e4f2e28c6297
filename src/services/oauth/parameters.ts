// The parameters of a token request and the checks every grant shares.
import { OAuthError } from '../../domain/errors.ts';
import type { App } from '../../store/apps-repository.ts';
import { appOf } from '../apps.ts';
import type { ServiceContext } from '../context.ts';

export type TokenParameters = Readonly<Record<string, string>>;

export function required(parameters: TokenParameters, name: string): string {
  const value = parameters[name];
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/**
 * The client named by client_id. In the sandbox the app id identifies the client (the contract has
 * no client secret); live mode adds the TPP's certificate.
 */
export async function authenticateClient(context: ServiceContext, parameters: TokenParameters): Promise<App> {
  const clientId = required(parameters, 'client_id');
  const app = await appOf(context, clientId);
  if (app === undefined) throw new OAuthError('invalid_client', 'client authentication failed');
  return app;
}
