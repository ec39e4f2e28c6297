// What every route's schema shares: the two error bodies (API and OAuth), the TPP headers, the
// headers every answer carries, and the statuses a route answers with their meaning. The OpenAPI
// document (/openapi.json) is generated from these and the routes' own schemas.
import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { API_ERRORS, type ApiErrorCode, type OAuthErrorCode, type TppMessage } from '../../domain/errors.ts';
import { apiErrorBody } from '../../http/errors.ts';

const FORMAT_ERROR_EXAMPLE: TppMessage = {
  code: 'FORMAT_ERROR',
  path: 'instructedAmount.amount',
  text: 'instructedAmount.amount must be a decimal with at most 2 fraction digits',
};

/** The API's error body (API-NOTES "Error bodies"); tppMessages name the field or header at fault. */
const ApiErrorBody = Type.Object(
  {
    httpCode: Type.String({ description: 'The HTTP status as text', examples: ['400'] }),
    httpMessage: Type.String({ description: "The status's reason phrase", examples: ['Bad Request'] }),
    moreInformation: Type.String({ description: 'The first message, for humans' }),
    tppMessages: Type.Array(
      Type.Object({
        category: Type.Literal('ERROR'),
        code: Type.Union(
          Object.keys(API_ERRORS).map((code) => Type.Literal(code as ApiErrorCode)),
          { description: 'A stable code: branch on it, not on the text' },
        ),
        path: Type.Optional(
          Type.String({ description: 'Where: a body path (instructedAmount.amount) or a header name' }),
        ),
        text: Type.String(),
      }),
    ),
  },
  {
    $id: 'ApiError',
    title: 'ApiError',
    examples: [apiErrorBody(400, [FORMAT_ERROR_EXAMPLE])],
  },
);

/** RFC 6749 section 5.2: the token, decoupled and authorization endpoints' error body. */
const OAuthErrorBody = Type.Object(
  {
    error: Type.String({
      description:
        'invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, server_error; decoupled: intent_expired, mbid_max_polling, mbid_error',
    }),
    error_description: Type.String(),
  },
  {
    $id: 'OAuthError',
    title: 'OAuthError',
    examples: [{ error: 'invalid_grant', error_description: 'the code has expired' }],
  },
);

/** The shared schemas, added to the app once so routes can refer to them by $id. */
export const SHARED_SCHEMAS: readonly TSchema[] = [ApiErrorBody, OAuthErrorBody];

const API_ERROR_MEANINGS: Record<number, string> = {
  400: 'The request breaks the contract: a header, parameter or body field is missing or malformed (FORMAT_ERROR, PARAMETER_NOT_SUPPORTED, PAYMENT_FAILED, EXECUTION_DATE_INVALID)',
  401: 'Who is calling is not established: unknown app, missing, unknown or expired token, missing or invalid certificate live, invalid or expired consent (CLIENT_UNKNOWN, TOKEN_INVALID, TOKEN_UNKNOWN, TOKEN_EXPIRED, CERTIFICATE_*, CONSENT_INVALID, CONSENT_EXPIRED, CORPORATE_ID_INVALID)',
  403: "The caller may not do this: the token's scope, the certificate's role or the app's subscriptions do not cover it, or the consent is not one of this app's (ROLE_INVALID, PRODUCT_INVALID, CONSENT_UNKNOWN)",
  404: "No such resource, or one that is not the caller's (answered alike), or no such payment product (RESOURCE_UNKNOWN, PRODUCT_UNKNOWN)",
  405: 'Not allowed on this resource now (CANCELLATION_INVALID, SERVICE_INVALID)',
  409: 'A request with the same Idempotency-Key is still in flight (IDEMPOTENCY_KEY_IN_FLIGHT: retry once it is answered), or the resource is in a status that does not allow this (STATUS_INVALID)',
  410: 'This version of the API is decommissioned; path names its successor (SERVICE_INVALID)',
  413: 'The body is larger than the service accepts (REQUEST_TOO_LARGE)',
  415: 'The body is not application/json (UNSUPPORTED_MEDIA_TYPE)',
  422: 'The Idempotency-Key was used before, by this app on this operation, for another request (IDEMPOTENCY_KEY_REUSED): send a new key for a new request',
  429: "Too many requests (ACCESS_EXCEEDED): the app's rate limit is reached, try again after Retry-After seconds; on account reads also: the consent's daily reads without the PSU are used up",
  500: 'An internal error; the text carries a correlation id, also in X-Correlation-ID (INTERNAL_ERROR)',
  503: "A system the call needs cannot answer now: the bank's core banking system, its e-ID service or login, or the gateway's database (SERVICE_UNAVAILABLE): try again after Retry-After seconds",
};

const OAUTH_ERROR_MEANINGS: Record<number, string> = {
  400: 'The request is refused (invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope; decoupled: intent_expired, mbid_max_polling, mbid_error)',
  401: 'The client is unknown or not allowed this grant (invalid_client)',
  413: 'The body is larger than the service accepts (invalid_request)',
  415: 'The body is not of the media type the endpoint takes (invalid_request)',
  429: 'Too many requests from this app or this address (temporarily_unavailable): try again after Retry-After seconds',
  500: 'An internal error; the description carries a correlation id (server_error)',
  503: "A system the call needs cannot answer now: the database, the bank's core banking system or its e-ID service (temporarily_unavailable): try again after Retry-After seconds; a decoupled session goes on",
};

const CORRELATION_EXAMPLE = '6f1c2b9e-8d4a-4e57-a0c3-2f9b7d1e5a48';

/** What the service answers with each status, as an example of it (texts as the service writes them). */
const API_ERROR_EXAMPLES: Record<number, TppMessage> = {
  400: FORMAT_ERROR_EXAMPLE,
  401: { code: 'TOKEN_UNKNOWN', text: 'The access token is not known' },
  403: { code: 'PRODUCT_INVALID', text: 'sek-credit-transfer is available only in a signing basket' },
  404: { code: 'RESOURCE_UNKNOWN', text: 'There is no endpoint for GET at this path' },
  405: {
    code: 'CANCELLATION_INVALID',
    text: 'payment 0f9d7c1e-3b7a-4c55-9f0e-5b2c8e1d4a6f is ACSC and can no longer be cancelled',
  },
  409: { code: 'STATUS_INVALID', text: 'App 0a5c7e3d8f9b4c21a6e4d2f1b3c5a7e9 is subscribed to PIS already' },
  410: {
    code: 'SERVICE_INVALID',
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    text: 'Version 1 of the Swedish payment API was decommissioned on 15 November 2026: use /psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
  },
  413: { code: 'REQUEST_TOO_LARGE', text: 'the request body is too large' },
  422: {
    code: 'IDEMPOTENCY_KEY_REUSED',
    path: 'Idempotency-Key',
    text: 'Idempotency-Key was already used for another request to this operation: send a new key for a new request',
  },
  429: {
    code: 'ACCESS_EXCEEDED',
    text: 'Too many requests from this app: at most 100 in 1 seconds; try again in 1 seconds',
  },
  500: { code: 'INTERNAL_ERROR', text: `An internal error occurred; correlation id ${CORRELATION_EXAMPLE}` },
  503: {
    code: 'SERVICE_UNAVAILABLE',
    text: `The service cannot answer now; try again in 5 seconds (correlation id ${CORRELATION_EXAMPLE})`,
  },
};

type OAuthErrorExample = { readonly error: OAuthErrorCode; readonly error_description: string };

const OAUTH_ERROR_EXAMPLES: Record<number, OAuthErrorExample> = {
  400: { error: 'invalid_grant', error_description: 'the code has expired' },
  401: { error: 'invalid_client', error_description: 'client authentication failed' },
  413: { error: 'invalid_request', error_description: 'the request body is too large' },
  429: {
    error: 'temporarily_unavailable',
    error_description:
      'Too many requests from this address: at most 30 in 60 seconds; try again in 12 seconds',
  },
  500: {
    error: 'server_error',
    error_description: `An internal error occurred; correlation id ${CORRELATION_EXAMPLE}`,
  },
  503: {
    error: 'temporarily_unavailable',
    error_description: `The service cannot answer now; try again in 5 seconds (correlation id ${CORRELATION_EXAMPLE})`,
  },
};

/** The API error body as the answer of each status, with what the status means. */
export function apiErrors(...statuses: number[]): Record<number, TSchema> {
  return errorAnswers(statuses, API_ERROR_MEANINGS, 'ApiError');
}

/** The OAuth error body as the answer of each status. */
export function oauthErrors(...statuses: number[]): Record<number, TSchema> {
  return errorAnswers(statuses, OAUTH_ERROR_MEANINGS, 'OAuthError');
}

function errorAnswers(
  statuses: readonly number[],
  meanings: Record<number, string>,
  ref: string,
): Record<number, TSchema> {
  // Every call that can fail inside can also meet a database that is away: 503 beside each 500.
  const all = statuses.includes(500) && !statuses.includes(503) ? [...statuses, 503] : statuses;
  return Object.fromEntries(
    all.map((status) => {
      const description = meanings[status];
      if (description === undefined) throw new Error(`no meaning written for error status ${status}`);
      return [status, Type.Ref(ref, { description })];
    }),
  );
}

/**
 * The error body an operation answers with a status, as the document's example of that answer: in the
 * shape the answer refers to (ApiError or OAuthError), the code of that status, and the text the
 * service writes (a 415 names the media type the operation takes). Undefined for a status without one.
 */
export function errorExample(
  shape: 'ApiError' | 'OAuthError',
  status: number,
  takes: string | undefined,
): unknown {
  if (shape === 'OAuthError') {
    if (status === 415)
      return { error: 'invalid_request', error_description: `the body must be ${takes ?? FORM}` };
    // The decoupled endpoints (JSON) refuse a poll too soon; the token endpoint an expired code.
    if (status === 400 && takes === 'application/json') return DECOUPLED_400;
    return OAUTH_ERROR_EXAMPLES[status];
  }
  const message =
    status === 415
      ? {
          code: 'UNSUPPORTED_MEDIA_TYPE' as const,
          text: `Content-Type must be ${takes ?? 'application/json'}`,
        }
      : API_ERROR_EXAMPLES[status];
  return message === undefined ? undefined : apiErrorBody(status, [message]);
}

const FORM = 'application/x-www-form-urlencoded';
const DECOUPLED_400: OAuthErrorExample = {
  error: 'mbid_max_polling',
  error_description: 'polled too often: wait sleep_time (2000 ms) between polls',
};

/** The statuses of calls with TPP headers and a bearer token; more for calls that take a body or write. */
export const TPP_CALL_ERRORS = [400, 401, 403, 404, 500] as const;
export const BODY_ERRORS = [413, 415] as const;
/** The statuses an Idempotency-Key adds: in flight (409), used for another request (422). */
export const KEYED_ERRORS = [409, 422] as const;

/** The Idempotency-Key header of the calls that create or change something. */
export const idempotencyKeyHeader = {
  'Idempotency-Key': Type.Optional(
    Type.String({
      maxLength: 600,
      description:
        'Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a Structured Field string such as "8e03978e-40d5-43e8-bc93-6894a57f9324" (a bare value of visible ASCII is taken as the same key), 1-255 characters. The same key from the same app on the same operation with the same request answers the first answer again (status and body) and does nothing twice, for at least 24 hours; with another request 422; while the first is in flight 409. A request that failed leaves no record. Without it the request is simply done: TPP-Request-ID is a correlation id only, never a reason to replay.',
      examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'],
    }),
  ),
};

const TPP_ID_PATTERN = '^[!-~]{1,128}$';

/** Headers every answer carries (API-NOTES "Headers"). */
const ANSWER_HEADERS = {
  'X-Correlation-ID': { type: 'string', description: 'Our id of this request: quote it to the bank' },
  'TPP-Request-ID': { type: 'string', description: 'Echoed from the request' },
  'TPP-Transaction-ID': { type: 'string', description: 'Echoed from the request' },
};

/** A success answer: its schema, what it means, and the headers it carries. */
export function answer<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description, headers: ANSWER_HEADERS };
}

export interface TppHeaderSchemaOptions {
  /** The general API: Country is required. */
  readonly country?: boolean;
  /** A PSU-present call: PSU-IP-Address (required live). */
  readonly psuPresent?: boolean;
  /** A call a corporate PSU makes: PSU-Corporate-ID and PSU-Corporate-ID-Type. */
  readonly corporate?: boolean;
  /** A call that creates or changes something: Idempotency-Key. */
  readonly keyed?: boolean;
  /** Extra headers of this call. */
  readonly extra?: TProperties;
}

/** The TPP headers of payment and account calls (spec "Endpoints", common headers). */
export function tppHeaderSchema(options: TppHeaderSchemaOptions = {}): TObject {
  return Type.Object({
    'X-Gateway-Client-Id': Type.String({
      minLength: 1,
      // No example: an id that is no app's only fails (the sandbox's docs page fills in its app's).
      description: 'The app id (client_id) the call is made for; onboarding: the TPP id',
    }),
    ...tppIdHeaders,
    ...(options.country === true
      ? {
          Country: Type.String({
            description: 'ISO 3166-1 alpha-2 country of the account: SE, NL, GB, LU (general API only)',
            examples: ['SE'],
          }),
        }
      : {}),
    'PSU-IP-Address': Type.Optional(
      Type.String({
        description:
          options.psuPresent === true
            ? "The PSU device's IP address: required live on this PSU-present call"
            : "The PSU device's IP address, when the PSU is present (account reads: it does not count against the consent's daily reads)",
        examples: ['192.0.2.1'],
      }),
    ),
    ...(options.corporate === true
      ? {
          'PSU-Corporate-ID': Type.Optional(
            Type.String({ description: "The corporate customer's id; required for corporate PSUs" }),
          ),
          'PSU-Corporate-ID-Type': Type.Optional(
            Type.String({ description: 'Always BANK; required for corporate PSUs', examples: ['BANK'] }),
          ),
        }
      : {}),
    ...(options.keyed === true ? idempotencyKeyHeader : {}),
    ...options.extra,
  });
}

/** TPP-Request-ID and TPP-Transaction-ID: every API call, onboarding included. */
export const tppIdHeaders = {
  'TPP-Request-ID': Type.String({
    pattern: TPP_ID_PATTERN,
    description:
      'A correlation id (1-128 visible ASCII characters): logged and echoed, never a reason to replay or refuse (a retry is made safe by Idempotency-Key)',
    examples: ['7f6f6a56-0a53-4f0b-9d22-0b5b7e0e4b8d'],
  }),
  'TPP-Transaction-ID': Type.String({
    pattern: TPP_ID_PATTERN,
    description: 'Unique per transaction (1-128 visible ASCII characters)',
    examples: ['b5b3a7a0-4a4c-4f0b-8a8f-2b7f7d1c2e11'],
  }),
};

/** A bearer token; live, also the TPP's certificate in the TLS handshake. */
export const BEARER = [{ bearerToken: [] }];

/**
 * Routes registered again under an extra auth base path (AUTH_BASE_PATHS) get operation ids of their
 * own: the prefix in camel case (/bb/gls5 -> BbGls5); under the base path, none.
 */
export function operationSuffix(prefix: string, basePath: string): string {
  if (prefix === basePath) return '';
  return prefix.replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) =>
    (next ?? '').toUpperCase(),
  );
}
