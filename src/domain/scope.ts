// OAuth scopes: "PIS", "AIS" or "CBPII" for client credentials; "PIS:<paymentId>" for a PSU's
// authorization of one payment (or basket, or short-term consent), "AIS:<consentId>" of one account
// consent.

/** The services a PSU authorizes a resource of. */
export type ClientScope = 'PIS' | 'AIS';

/** The scopes of a client-credentials token: a PSU's services and confirmation of funds (CBPII). */
export type ClientCredentialsScope = ClientScope | 'CBPII';
const CLIENT_CREDENTIALS_SCOPES: readonly ClientCredentialsScope[] = ['PIS', 'AIS', 'CBPII'];

export interface ResourceScope {
  readonly service: ClientScope;
  readonly resourceId: string;
}

const RESOURCE_SCOPE = /^(PIS|AIS):([A-Za-z0-9-]{1,64})$/;

export function parseResourceScope(scope: string): ResourceScope | undefined {
  const match = RESOURCE_SCOPE.exec(scope);
  if (match === null) return undefined;
  return { service: match[1] as ClientScope, resourceId: match[2]! };
}

export function formatResourceScope(scope: ResourceScope): string {
  return `${scope.service}:${scope.resourceId}`;
}

export function isClientCredentialsScope(scope: string): scope is ClientCredentialsScope {
  return (CLIENT_CREDENTIALS_SCOPES as readonly string[]).includes(scope);
}

/** Account access gets a refresh token; payments never do (issue 3). */
export function grantsRefreshToken(scope: string): boolean {
  return scope.startsWith('AIS:');
}
