// The parts of node-oidc-provider (which ships no types) that test/stand-ins/oidc-provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Account {
    readonly accountId: string;
    /** use: id_token or userinfo. */
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export interface Interaction {
    readonly uid: string;
    readonly prompt: { readonly name: string };
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: readonly string[]): void;
    save(): Promise<string>;
  }

  export interface OidcContext {
    readonly oidc: {
      readonly client: { readonly clientId: string };
      readonly session: { readonly accountId: string; grantIdFor(clientId: string): string | undefined };
      readonly result?: { readonly consent?: { readonly grantId?: string } };
    };
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { readonly mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    readonly Client: {
      readonly adapter: { upsert(id: string, payload: Record<string, unknown>): Promise<void> };
    };
    readonly Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
  }
}

declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  /** The provider's in-memory store, as a factory of one adapter per model. */
  export function createMemoryAdapter(clockTolerance?: number): (model: string) => unknown;
}
