// The TPP hooks of payment, account and onboarding calls: the headers read by http/tpp-headers.ts, then
// the app they name (services/access/apps.ts) and, with mutual TLS, its live access. They live with the
// routes, not in http/: they ask the kernel, and http/ is the plumbing below the use cases.
// Run before the body is read, so a call without them is refused before anything else.
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { peerIdentity } from '../../http/mtls.ts';
import { clientIdOf, readTppHeaders } from '../../http/tpp-headers.ts';
import { appOf } from '../../services/access/apps.ts';
import {
  checkLiveAccess,
  type LiveAccessRule,
  requireSubscription,
} from '../../services/access/live-access.ts';
import type { ServiceContext } from '../../services/shared/context.ts';

export interface TppAppOptions {
  /** 'header': the general API, Country is required; otherwise the country is in the path. */
  readonly country: 'header' | 'path';
  /** PSU-present calls (initiation, execution): live mode requires PSU-IP-Address (API-NOTES). */
  readonly psuPresent?: boolean;
  /** The products the call needs (from its path), and live the role its certificate must carry. */
  readonly live: (request: FastifyRequest) => LiveAccessRule;
}

/** The TPP headers and the app they name; sets request.tpp (http/request-context.ts). */
export function tppHeaders(context: ServiceContext, options: TppAppOptions): onRequestAsyncHookHandler {
  const aliases = context.config.clientIdHeaderAliases;
  return async function checkTppHeaders(request: FastifyRequest, _reply: FastifyReply) {
    const { clientId, requestId, transactionId, country } = readTppHeaders(request, aliases, {
      country: options.country,
      psuIpAddress: options.psuPresent === true && context.policy.requirePsuIpAddress,
    });
    const app = await appOf(context, clientId);
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
