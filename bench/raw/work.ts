// raw(work): parses the JSON (or form) body, validates it about as the contract asks, keeps the payments
// it initiated in a Map and builds its answers (bench/raw.ts says how much). Here the server and the
// gates every call passes in the same order as before the split: the body read, the ids echoed, the
// OAuth routes, an execution kept in PostgreSQL (its token checked there), then the TPP headers and a
// known token before the payment and account routes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenRaw, type Target } from '../common.ts';
import { echo, fail, readBody, UUID } from './http.ts';
import { confirmFunds, listAccounts, listTransactions } from './work-accounts.ts';
import type { RawData, RawFlows, RawInitiation, WorkCall } from './work-data.ts';
import { authorize, exchangeToken } from './work-oauth.ts';
import {
  executeKept,
  executePayment,
  initiateBasket,
  initiatePayment,
  paymentStatus,
} from './work-payments.ts';

/** The TPP headers every call needs and its bearer token ('' without one); undefined (answered 400) when they are wrong. */
function tppBearer(request: IncomingMessage, response: ServerResponse): string | undefined {
  const authorization = request.headers.authorization;
  const clientId = request.headers['x-gateway-client-id'];
  if (typeof clientId !== 'string' || clientId === '') {
    fail(response, 400, 'FORMAT_ERROR', 'X-Gateway-Client-Id is required');
    return undefined;
  }
  const requestId = request.headers['tpp-request-id'];
  if (typeof requestId !== 'string' || !UUID.test(requestId)) {
    fail(response, 400, 'FORMAT_ERROR', 'TPP-Request-ID must be a UUID');
    return undefined;
  }
  return authorization?.startsWith('Bearer ') === true ? authorization.slice(7) : '';
}

/**
 * The raw(work) server over `data`; with `keep`, each initiation is kept before it is answered; with
 * `flows`, codes, tokens, executions and statuses are PostgreSQL's (rawPgFlows) instead of the Maps'.
 */
export async function rawWorkServer(
  data: RawData,
  keep?: (initiation: RawInitiation) => Promise<void>,
  flows?: RawFlows,
): Promise<Target> {
  const authorizedPsu = (request: IncomingMessage, response: ServerResponse): string | undefined => {
    const bearer = tppBearer(request, response);
    if (bearer === undefined) return undefined;
    const psu = data.tokens.get(bearer);
    if (psu === undefined) fail(response, 401, 'TOKEN_INVALID', 'The token is not valid');
    return psu;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const text = await readBody(request);
    echo(request, response);
    const url = new URL(request.url ?? '/', 'http://raw');
    const path = url.pathname;
    const origin = `http://${request.headers.host}`;
    if (path === '/oauth2/authorize/1.0') return authorize(response, url.searchParams, flows);
    if (path === '/oauth2/token/1.0') return exchangeToken(response, text, data, flows);
    const parts = path.split('/');
    if (flows !== undefined && request.method === 'PUT' && parts.includes('payments')) {
      // The headers as for every call; the PSU token is checked in the execution's statement.
      const bearer = tppBearer(request, response);
      if (bearer === undefined) return;
      return executeKept(request, response, parts, bearer, flows);
    }
    const psu = authorizedPsu(request, response);
    if (psu === undefined) return;
    const call: WorkCall = { request, response, text, url, path, parts, origin, psu };
    if (request.method === 'POST' && path.endsWith('/signing-basket')) return initiateBasket(call, data);
    if (request.method === 'POST' && parts.includes('single')) return initiatePayment(call, data, keep);
    if (request.method === 'GET' && path.endsWith('/status') && parts.includes('payments'))
      return paymentStatus(call, data, flows);
    if (request.method === 'PUT' && parts.includes('payments')) return executePayment(call, data);
    if (request.method === 'POST' && path === '/psd2/v1/funds-confirmations') return confirmFunds(call, data);
    if (request.method === 'GET' && path === '/psd2/v1/accounts') return listAccounts(call, data);
    if (request.method === 'GET' && path.endsWith('/transactions')) return listTransactions(call, data);
    fail(response, 404, 'RESOURCE_UNKNOWN', `${request.method} ${path}`);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => fail(response, 500, 'INTERNAL', String(error)));
  });
  return listenRaw(server);
}
