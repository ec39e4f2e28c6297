// The TPP headers of payment and account calls: X-Gateway-Client-Id (a registered app; aliases from
// config), TPP-Request-ID and TPP-Transaction-ID (required), and on the general API the Country.
// Runs before the body is read, so a call without them is refused before anything else.
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError, type TppMessage } from '../domain/errors.ts';
import { COUNTRIES, type Country, isCountry, looksLikeCountryCode } from '../domain/products.ts';
import { appOf } from '../services/access/apps.ts';
import { checkLiveAccess, type LiveAccessRule, requireSubscription } from '../services/access/live-access.ts';
import type { ServiceContext } from '../services/shared/context.ts';
import { peerIdentity } from './mtls.ts';

export const CLIENT_ID_HEADER = 'x-gateway-client-id';
/** Visible ASCII without spaces, as request and transaction ids are echoed in response headers. */
const TPP_ID = /^[\x21-\x7e]{1,128}$/;

export interface TppHeaderOptions {
  /** 'header': the general API, Country is required; otherwise the country is in the path. */
  readonly country: 'header' | 'path';
  /** PSU-present calls (initiation, execution): live mode requires PSU-IP-Address (API-NOTES). */
  readonly psuPresent?: boolean;
  /** The products the call needs (from its path), and live the role its certificate must carry. */
  readonly live: (request: FastifyRequest) => LiveAccessRule;
}

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

export function tppHeaders(context: ServiceContext, options: TppHeaderOptions): onRequestAsyncHookHandler {
  const aliases = context.config.clientIdHeaderAliases;
  return async function checkTppHeaders(request: FastifyRequest, _reply: FastifyReply) {
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
    if (options.psuPresent === true && context.policy.requirePsuIpAddress)
      checkPsuIpAddress(request, messages);
    if (messages.length > 0) throw new ApiError(messages);
    const app = await appOf(context, clientId!);
    if (app === undefined) {
      throw new ApiError({
        code: 'CLIENT_UNKNOWN',
        path: 'X-Gateway-Client-Id',
        text: 'X-Gateway-Client-Id names no registered app',
      });
    }
    if (context.mtls) await checkLiveAccess(context, peerIdentity(request), app, options.live(request));
    else await requireSubscription(context, app, options.live(request).products);
    request.tpp = { app, requestId, transactionId, country };
  };
}

/** Onboarding calls after enrollment: X-Gateway-Client-Id (or an alias) names the TPP. */
export function tppIdHeader(context: ServiceContext): onRequestAsyncHookHandler {
  return async function checkTppId(request: FastifyRequest) {
    if (clientIdOf(request, context.config.clientIdHeaderAliases) === undefined) {
      throw new ApiError({
        code: 'FORMAT_ERROR',
        path: 'X-Gateway-Client-Id',
        text: 'header X-Gateway-Client-Id (the TPP id) is required',
      });
    }
  };
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
