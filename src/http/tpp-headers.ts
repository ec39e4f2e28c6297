// The TPP headers of payment and account calls: X-Gateway-Client-Id (a registered app; aliases from
// config), TPP-Request-ID and TPP-Transaction-ID (required), and on the general API the Country.
// Runs before the body is read, so a call without them is refused before anything else. Only reading:
// the app behind the id and its live access are the kernel's, asked by the route's hook
// (api/shared/tpp-app.ts), since http/ sits below the use cases and calls none of them.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError, type TppMessage } from '../domain/errors.ts';
import { COUNTRIES, type Country, isCountry, looksLikeCountryCode } from '../domain/products.ts';

const CLIENT_ID_HEADER = 'x-gateway-client-id';
/** Visible ASCII without spaces, as request and transaction ids are echoed in response headers. */
const TPP_ID = /^[\x21-\x7e]{1,128}$/;

export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) return value.join(',');
  return value === undefined || value === '' ? undefined : value;
}

/** PSU-Corporate-ID and PSU-Corporate-ID-Type as sent (checked by the use case). */
export function corporateHeaders(request: FastifyRequest): {
  id: string | undefined;
  type: string | undefined;
} {
  return { id: header(request, 'psu-corporate-id'), type: header(request, 'psu-corporate-id-type') };
}

/**
 * The app (or, on onboarding calls, the TPP) id: X-Gateway-Client-Id or one of its configured aliases.
 * One found under an alias is also set as X-Gateway-Client-Id, the header the route's schema names.
 */
export function clientIdOf(request: FastifyRequest, aliases: readonly string[]): string | undefined {
  for (const name of [CLIENT_ID_HEADER, ...aliases]) {
    const value = header(request, name);
    if (value === undefined) continue;
    request.headers[CLIENT_ID_HEADER] = value;
    return value;
  }
  return undefined;
}

function requireId(request: FastifyRequest, name: string, messages: TppMessage[]): string {
  const value = header(request, name.toLowerCase());
  if (value === undefined)
    messages.push({ code: 'FORMAT_ERROR', path: name, text: `header ${name} is required` });
  else if (!TPP_ID.test(value)) {
    messages.push({
      code: 'FORMAT_ERROR',
      path: name,
      text: `header ${name} must be 1 to 128 visible ASCII characters`,
    });
  }
  return value ?? '';
}

function countryOf(request: FastifyRequest, messages: TppMessage[]): Country | undefined {
  const value = header(request, 'country');
  if (value === undefined) {
    messages.push({ code: 'FORMAT_ERROR', path: 'Country', text: 'header Country is required' });
  } else if (!looksLikeCountryCode(value)) {
    messages.push({
      code: 'FORMAT_ERROR',
      path: 'Country',
      text: 'header Country must be an ISO 3166-1 alpha-2 code',
    });
  } else if (!isCountry(value)) {
    messages.push({
      code: 'PARAMETER_NOT_SUPPORTED',
      path: 'Country',
      text: `header Country: the bank offers this API in ${COUNTRIES.join(', ')}`,
    });
  } else {
    return value;
  }
  return undefined;
}

function checkPsuIpAddress(request: FastifyRequest, messages: TppMessage[]): void {
  const value = header(request, 'psu-ip-address');
  if (value === undefined) {
    messages.push({
      code: 'FORMAT_ERROR',
      path: 'PSU-IP-Address',
      text: 'header PSU-IP-Address is required',
    });
  } else if (isIP(value) === 0) {
    messages.push({
      code: 'FORMAT_ERROR',
      path: 'PSU-IP-Address',
      text: 'header PSU-IP-Address must be an IPv4 or IPv6 address',
    });
  }
}

/** The TPP's ids as the headers name them; the app behind the client id is found by the route's hook. */
export interface TppIds {
  readonly clientId: string;
  readonly requestId: string;
  readonly transactionId: string;
  /** The Country header, on routes that take it. */
  readonly country: Country | undefined;
}

/**
 * The TPP headers of a payment or account call, every problem listed at once: X-Gateway-Client-Id (or
 * an alias), TPP-Request-ID, TPP-Transaction-ID, the Country where the general API takes it, and
 * PSU-IP-Address where it is required.
 */
export function readTppHeaders(
  request: FastifyRequest,
  aliases: readonly string[],
  options: { readonly country: 'header' | 'path'; readonly psuIpAddress: boolean },
): TppIds {
  const messages: TppMessage[] = [];
  const clientId = clientIdOf(request, aliases);
  if (clientId === undefined) {
    messages.push({
      code: 'FORMAT_ERROR',
      path: 'X-Gateway-Client-Id',
      text: 'header X-Gateway-Client-Id is required',
    });
  }
  const requestId = requireId(request, 'TPP-Request-ID', messages);
  const transactionId = requireId(request, 'TPP-Transaction-ID', messages);
  const country = options.country === 'header' ? countryOf(request, messages) : undefined;
  if (options.psuIpAddress) checkPsuIpAddress(request, messages);
  if (messages.length > 0) throw new ApiError(messages);
  return { clientId: clientId!, requestId, transactionId, country };
}

/** TPP-Request-ID and TPP-Transaction-ID only: the calls a TPP makes before it has an app (onboarding). */
export const tppIdsOnly: onRequestAsyncHookHandler = async function checkTppIds(request: FastifyRequest) {
  const messages: TppMessage[] = [];
  requireId(request, 'TPP-Request-ID', messages);
  requireId(request, 'TPP-Transaction-ID', messages);
  if (messages.length > 0) throw new ApiError(messages);
};

/** The TPP's ids every answer echoes (API-NOTES): the request header, and its name in the answer. */
const ECHOED = [
  ['tpp-request-id', 'TPP-Request-ID'],
  ['tpp-transaction-id', 'TPP-Transaction-ID'],
] as const;

/**
 * Calls `echo` with each TPP id of the request that an answer echoes (API-NOTES), when it is
 * well-formed: input that is not is never sent back. bench/raw.ts answers by the same rule.
 */
export function forEachEchoedId(
  headers: IncomingHttpHeaders,
  echo: (name: string, value: string) => void,
): void {
  for (const [header, name] of ECHOED) {
    const value = headers[header];
    if (typeof value === 'string' && TPP_ID.test(value)) echo(name, value);
  }
}

/** The headers every answer carries: the correlation id and the TPP's ids, echoed. */
export function setAnswerHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Correlation-ID', request.id);
  forEachEchoedId(request.headers, (name, value) => reply.header(name, value));
}
