// The steps the flows are made of: what a request sends beyond what its operation documents, the
// test-script lines that check its answer and pass variables on, and the steps more than one flow takes
// (a client-credentials token, the redirect authorization, a Sweden v2 initiation, execution and status).

/** What a flow's step sends, beyond what its operation documents. */
export interface Step {
  readonly name: string;
  readonly operationId: string;
  /** The bearer token variable: the client-credentials token, or the PSU's. */
  readonly auth?: 'token' | 'psuToken';
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

export function clientToken(scope: string): Step {
  return {
    name: `Client-credentials token (${scope})`,
    operationId: 'getToken',
    body: { form: { grant_type: 'client_credentials', scope, client_id: '{{clientId}}' } },
    status: 200,
    after: [json, set('token', 'body.access_token')],
  };
}

/** The redirect authorization of a scope, and the code's exchange for the PSU's token. */
export function redirectAuthorization(scope: string): Step[] {
  return [
    {
      name: 'Authorize (the sandbox approves at once)',
      operationId: 'authorize',
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
      operationId: 'getToken',
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
      after: [json, set('psuToken', 'body.access_token')],
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
