// The steps the flows are made of: what a request sends beyond what its operation documents, the
// test-script lines that check its answer and pass variables on, and the steps more than one flow takes
// (a client-credentials token, the redirect authorization, a Sweden v2 initiation, execution and status).

/** What a flow's step sends, beyond what its operation documents. */
export interface Step {
  readonly name: string;
  readonly operationId: string;
  /** The bearer token's variable: a client-credentials token (token, aisToken) or a PSU's (psuToken...). */
  readonly auth?: string;
  readonly path?: Record<string, string>;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
  readonly body?:
    | { readonly example: string }
    | { readonly json: unknown }
    | { readonly form: Record<string, string> };
  readonly status: number;
  /** Test-script lines after the status test: checks and the variables the next steps use. */
  readonly after?: readonly string[];
  readonly before?: readonly string[];
}

export interface Flow {
  readonly name: string;
  readonly description: string;
  readonly steps: readonly Step[];
}

export const json = 'const body = pm.response.json();';
export const set = (variable: string, expression: string) =>
  `pm.collectionVariables.set('${variable}', ${expression});`;
export const expectField = (field: string, values: readonly string[]) =>
  `pm.test('${field} is ${values.join(' or ')}', () => pm.expect(${JSON.stringify(values)}).to.include(body.${field}));`;

/** A test that the body has these fields. */
export const hasFields = (fields: readonly string[]) =>
  `pm.test('the body has ${fields.join(', ')}', () => pm.expect(body).to.include.keys(${JSON.stringify(fields)}));`;
/** A test that a part of the body (\`body\`, \`body.x\`) equals a value: JSON, or a script expression. */
export const equals = (part: string, value: unknown, expression = false) =>
  `pm.test('${part} is as expected', () => pm.expect(${part}).to.eql(${expression ? String(value) : JSON.stringify(value)}));`;
/** A test that the answer is the API error of this status and code (API-NOTES "Error bodies"). */
export const apiErrorIs = (status: number, message: string, code: string) =>
  `pm.test('${status} ${code}', () => { pm.expect(body.httpCode).to.equal('${status}'); pm.expect(body.httpMessage).to.equal('${message}'); pm.expect(body.tppMessages[0].code).to.equal('${code}'); });`;
/** A test that a text answer (HTML, YAML, metrics) contains this. */
export const textIncludes = (text: string) =>
  `pm.test('the answer shows ${text.replaceAll("'", '')}', () => pm.expect(pm.response.text()).to.include(${JSON.stringify(text)}));`;

export function clientToken(scope: string, variable = 'token'): Step {
  return {
    name: `Client-credentials token (${scope})`,
    operationId: 'getToken',
    body: { form: { grant_type: 'client_credentials', scope, client_id: '{{clientId}}' } },
    status: 200,
    after: [
      json,
      hasFields(['access_token', 'token_type', 'expires_in']),
      expectField('token_type', ['Bearer']),
      set(variable, 'body.access_token'),
    ],
  };
}

/**
 * The redirect authorization of a scope, and the code's exchange for the PSU's token (in `token`, and
 * its refresh token in refreshToken when asked); `operation` authorizeRedirect exchanges at the /redirect
 * token alias as well.
 */
export function redirectAuthorization(
  scope: string,
  options: { token?: string; refresh?: boolean; operation?: 'authorize' | 'authorizeRedirect' } = {},
): Step[] {
  const { token = 'psuToken', refresh = false, operation = 'authorize' } = options;
  return [
    {
      name: 'Authorize (the sandbox approves at once)',
      operationId: operation,
      query: {
        response_type: 'code',
        scope,
        client_id: '{{clientId}}',
        state: 'collection',
        redirect_uri: '{{redirectUri}}',
      },
      status: 302,
      after: [
        "const location = pm.response.headers.get('Location');",
        "pm.test('the redirect carries the code and the state', () => pm.expect(location).to.match(/[?&]code=[^&]+/).and.to.match(/[?&]state=collection/));",
        set('code', 'decodeURIComponent(/[?&]code=([^&]+)/.exec(location)[1])'),
      ],
    },
    {
      name: "Exchange the code for the PSU's token",
      operationId: operation === 'authorize' ? 'getToken' : 'getTokenRedirect',
      body: {
        form: {
          grant_type: 'authorization_code',
          scope,
          client_id: '{{clientId}}',
          code: '{{code}}',
          redirect_uri: '{{redirectUri}}',
        },
      },
      status: 200,
      after: [
        json,
        hasFields(['access_token', 'token_type', 'expires_in']),
        set(token, 'body.access_token'),
        ...(refresh ? [set('refreshToken', 'body.refresh_token')] : []),
      ],
    },
  ];
}

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';

export function initiateSeV2(): Step {
  return {
    name: 'Initiate a payment (Sweden v2)',
    operationId: 'initiateSeV2Payment',
    auth: 'token',
    path: { customerType: 'private', paymentProduct: DOMESTIC },
    body: { example: 'domestic' },
    status: 200,
    after: [json, expectField('transactionStatus', ['ACTC']), set('paymentId', 'body.paymentId')],
  };
}

export function executeAndStatus(): Step[] {
  return [
    {
      name: "Execute with the PSU's token",
      operationId: 'executePaymentSeV2',
      auth: 'psuToken',
      path: { paymentProduct: DOMESTIC, paymentId: '{{paymentId}}' },
      status: 200,
      after: [json, expectField('transactionStatus', ['ACCC', 'ACSC', 'ACCP'])],
    },
    {
      name: 'Read the status',
      operationId: 'getPaymentStatusSeV2',
      auth: 'token',
      path: { paymentProduct: DOMESTIC, paymentId: '{{paymentId}}' },
      status: 200,
      after: [json, expectField('transactionStatus', ['ACCC', 'ACSC', 'ACCP'])],
    },
  ];
}
