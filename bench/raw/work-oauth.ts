// raw(work)'s OAuth routes: the authorize redirect carrying a new code (or, with flows kept in
// PostgreSQL, a code only for a payment of the app awaiting authorization), and the token endpoint.
import type { ServerResponse } from 'node:http';
import { fail, send, token } from './http.ts';
import type { RawData, RawFlows } from './work-data.ts';

/** GET /oauth2/authorize/1.0: the redirect to the app's URI with the code and the state. */
export async function authorize(
  response: ServerResponse,
  query: URLSearchParams,
  flows: RawFlows | undefined,
): Promise<void> {
  const redirect = query.get('redirect_uri');
  if (query.get('client_id') === null || redirect === null || query.get('scope') === null) {
    fail(response, 400, 'FORMAT_ERROR', 'client_id, scope and redirect_uri are required');
    return;
  }
  const location = new URL(redirect);
  const code =
    flows === undefined ? token() : await flows.issueCode(query.get('client_id')!, query.get('scope')!);
  if (code === undefined) location.searchParams.set('error', 'invalid_scope');
  else location.searchParams.set('code', code);
  location.searchParams.set('state', query.get('state') ?? '');
  response.writeHead(302, { location: location.href }).end();
}

/** POST /oauth2/token/1.0: a new token for the grant (the code used up when flows are kept). */
export async function exchangeToken(
  response: ServerResponse,
  text: string,
  data: RawData,
  flows: RawFlows | undefined,
): Promise<void> {
  const form = new URLSearchParams(text);
  if (form.get('grant_type') === null || form.get('client_id') === null) {
    send(response, 400, { error: 'invalid_request', error_description: 'grant_type and client_id' });
    return;
  }
  const code = form.get('code');
  const issued = flows === undefined ? token() : await flows.exchange(code ?? '', form.get('client_id')!);
  if (issued === undefined) {
    send(response, 400, { error: 'invalid_grant', error_description: 'the code is not valid' });
    return;
  }
  if (flows === undefined) data.tokens.set(issued, '');
  send(response, 200, {
    access_token: issued,
    token_type: 'Bearer',
    expires_in: 900,
    scope: form.get('scope'),
  });
}
