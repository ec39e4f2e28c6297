// What the cross-cutting hooks attach to a request.
import type { App } from '../domain/apps.ts';
import type { TokenGrant } from '../domain/grants.ts';
import type { Country } from '../domain/products.ts';

export interface TppContext {
  readonly app: App;
  readonly requestId: string;
  readonly transactionId: string;
  /** The Country header, on routes that take it. */
  readonly country: Country | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    tpp: TppContext | undefined;
    grant: TokenGrant | undefined;
  }
  interface FastifyContextConfig {
    /** The body shape of this route's errors: RFC 6749 for the OAuth endpoints, the API shape elsewhere. */
    errorShape?: 'oauth' | 'api';
    /** The route checks text a database cannot hold itself (see http/text-guard.ts). */
    checksOwnText?: true;
  }
}

/** The request's TPP context; only on routes that run the tppHeaders hook. */
export function tppOf(request: { tpp: TppContext | undefined }): TppContext {
  if (request.tpp === undefined) throw new Error('route has no tppHeaders hook');
  return request.tpp;
}

export function grantOf(request: { grant: TokenGrant | undefined }): TokenGrant {
  if (request.grant === undefined) throw new Error('route has no bearer hook');
  return request.grant;
}
