// The one error catalogue: a stable code, the HTTP status it is answered with. Codes and statuses
// follow Berlin Group (see API-NOTES "Error bodies"). The HTTP layer serialises these in one place.

export const API_ERRORS = {
  FORMAT_ERROR: 400,
  PARAMETER_NOT_SUPPORTED: 400,
  PAYMENT_FAILED: 400,
  EXECUTION_DATE_INVALID: 400,
  CERTIFICATE_INVALID: 401,
  CERTIFICATE_EXPIRED: 401,
  CERTIFICATE_MISSING: 401,
  TOKEN_INVALID: 401,
  TOKEN_EXPIRED: 401,
  TOKEN_UNKNOWN: 401,
  CONSENT_INVALID: 401,
  CONSENT_EXPIRED: 401,
  CORPORATE_ID_INVALID: 401,
  // Not Berlin Group: an X-Gateway-Client-Id that names no registered app.
  CLIENT_UNKNOWN: 401,
  ROLE_INVALID: 403,
  PRODUCT_INVALID: 403,
  CONSENT_UNKNOWN: 403,
  PRODUCT_UNKNOWN: 404,
  RESOURCE_UNKNOWN: 404,
  SERVICE_INVALID: 405,
  CANCELLATION_INVALID: 405,
  // Not Berlin Group: Idempotency-Key (draft-ietf-httpapi-idempotency-key-header) while its first
  // request is in flight (409), and used before for another request (422).
  IDEMPOTENCY_KEY_IN_FLIGHT: 409,
  STATUS_INVALID: 409,
  REQUEST_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  ACCESS_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

export interface TppMessage {
  readonly code: ApiErrorCode;
  readonly text: string;
  /** Where in the request the problem is: a body path (`instructedAmount.amount`) or a header name. */
  readonly path?: string;
}

/** An error answered in the API body shape (httpCode, httpMessage, moreInformation, tppMessages). */
export class ApiError extends Error {
  readonly status: number;
  readonly messages: readonly TppMessage[];

  constructor(messages: TppMessage | readonly TppMessage[], status?: number) {
    const list = Array.isArray(messages) ? (messages as readonly TppMessage[]) : [messages as TppMessage];
    const first = list[0];
    if (first === undefined) throw new TypeError('ApiError needs at least one message');
    super(first.text);
    this.name = 'ApiError';
    this.messages = list;
    this.status = status ?? statusOf(first.code);
  }

  get code(): ApiErrorCode {
    return this.messages[0]!.code;
  }
}

function statusOf(code: ApiErrorCode): number {
  return API_ERRORS[code];
}

export function apiError(code: ApiErrorCode, text: string, path?: string): ApiError {
  return new ApiError(path === undefined ? { code, text } : { code, text, path });
}

/**
 * A resource that does not exist, or is not the caller's: both answer exactly this (404
 * RESOURCE_UNKNOWN, a text that names no id), so that an answer never tells whether someone else's
 * exists (issue 37; API-NOTES "Error bodies" listed 403 for someone else's).
 */
export function unknownResource(text: string, path?: string): ApiError {
  return apiError('RESOURCE_UNKNOWN', text, path);
}

// RFC 6749 errors of the token and authorize endpoints.
const OAUTH_ERRORS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  access_denied: 403,
  server_error: 500,
  temporarily_unavailable: 503,
  // The decoupled (mobile e-ID) token endpoint's own errors (API-NOTES "Decoupled").
  intent_expired: 400,
  mbid_max_polling: 400,
  mbid_error: 400,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

export class OAuthError extends Error {
  readonly status: number;

  /** `status`: another than the code's own, as 429 for temporarily_unavailable on a rate limit. */
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    status?: number,
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = status ?? OAUTH_ERRORS[error];
  }
}
