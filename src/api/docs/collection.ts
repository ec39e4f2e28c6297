// A Postman collection (v2.1) generated from the OpenAPI document: the flows of the contract in order,
// each request taken from its operation (method, path, documented headers, example body) and wired to
// the ones before it by variables (token -> paymentId -> code -> PSU token), with a test per request;
// then every operation by tag, for reference. Served at /sandbox/collection with the sandbox's own
// base URL, client id and redirect URI; committed as docs/psd2-gateway.postman_collection.json.

type Json = Record<string, unknown>;
interface Parameter {
  readonly in: string;
  readonly name: string;
  readonly required?: boolean;
}
interface Operation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly security?: readonly Json[];
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: {
    readonly content: Record<string, { readonly examples?: Record<string, { readonly value: unknown }> }>;
  };
}
export interface OpenApiDocument {
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Record<string, Record<string, Operation>>;
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
}

/** What a flow's step sends, beyond what its operation documents. */
interface Step {
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

interface Flow {
  readonly name: string;
  readonly description: string;
  readonly steps: readonly Step[];
}

const json = 'const body = pm.response.json();';
const set = (variable: string, expression: string) =>
  `pm.collectionVariables.set('${variable}', ${expression});`;
const expectField = (field: string, values: readonly string[]) =>
  `pm.test('${field} is ${values.join(' or ')}', () => pm.expect(${JSON.stringify(values)}).to.include(body.${field}));`;

function clientToken(scope: string): Step {
  return {
    name: `Client-credentials token (${scope})`,
    operationId: 'getToken',
    body: { form: { grant_type: 'client_credentials', scope, client_id: '{{clientId}}' } },
    status: 200,
    after: [json, set('token', 'body.access_token')],
  };
}

/** The redirect authorization of a scope, and the code's exchange for the PSU's token. */
function redirectAuthorization(scope: string): Step[] {
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

function initiateSeV2(): Step {
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

function executeAndStatus(): Step[] {
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

/** The flows of the contract, in the order a TPP goes through them. */
export const FLOWS: readonly Flow[] = [
  {
    name: '1. Payment: redirect authorization',
    description:
      'Spec steps 1-5: a client-credentials token, the initiation, the PSU authorizes (the sandbox redirects with the code at once), the code for the PSU token, execution, status.',
    steps: [
      clientToken('PIS'),
      initiateSeV2(),
      ...redirectAuthorization('PIS:{{paymentId}}'),
      ...executeAndStatus(),
    ],
  },
  {
    name: '2. Payment: decoupled (mobile e-ID) authorization',
    description:
      'Sweden: the PSU approves in the e-ID app; the collection polls the token URL no sooner than sleep_time apart until COMPLETE.',
    steps: [
      clientToken('PIS'),
      initiateSeV2(),
      {
        name: 'Start the decoupled authorization',
        operationId: 'startDecoupledAuthorization',
        body: {
          json: {
            client_id: '{{clientId}}',
            scope: 'PIS:{{paymentId}}',
            psu_client_ip: '{{psuIpAddress}}',
            bisa_same_device: false,
          },
        },
        status: 200,
        after: [
          json,
          set('sessionId', 'decodeURIComponent(/sessionId=([^&]+)/.exec(body._links.token.href)[1])'),
          set('sleepTime', 'body.sleep_time'),
          set('polls', '0'),
        ],
      },
      {
        name: 'Poll until COMPLETE (sleep_time apart)',
        operationId: 'pollDecoupledToken',
        query: { sessionId: '{{sessionId}}' },
        body: { json: {} },
        status: 200,
        before: ["setTimeout(() => {}, Number(pm.collectionVariables.get('sleepTime')) || 0);"],
        after: [
          json,
          "const polls = Number(pm.collectionVariables.get('polls')) + 1;",
          set('polls', 'polls'),
          "pm.test('in progress or complete', () => pm.expect(['IN_PROGRESS', 'COMPLETE']).to.include(body.result));",
          "if (body.result === 'IN_PROGRESS' && polls < 10) {",
          `  ${set('sleepTime', 'body.sleep_time')}`,
          '  postman.setNextRequest(pm.info.requestName);',
          '} else {',
          "  pm.test('complete', () => pm.expect(body.result).to.equal('COMPLETE'));",
          `  ${set('psuToken', 'body.access_token')}`,
          '}',
        ],
      },
      ...executeAndStatus(),
    ],
  },
  {
    name: '3. Signing basket',
    description:
      'Sweden, private customers: several payments authorized once (scope PIS:{signingBaskedId}) and executed together, all or none.',
    steps: [
      clientToken('PIS'),
      {
        name: 'Initiate a basket',
        operationId: 'initiateBasket',
        auth: 'token',
        body: { example: 'basket' },
        status: 200,
        after: [json, set('basketId', 'body.signingBaskedId')],
      },
      ...redirectAuthorization('PIS:{{basketId}}'),
      {
        name: 'Execute the basket',
        operationId: 'executePaymentSeV2',
        auth: 'psuToken',
        path: { paymentProduct: 'sek-credit-transfer', paymentId: '{{basketId}}' },
        status: 200,
        after: [
          json,
          "pm.test('the basket answers', () => pm.expect(body.signingBasketId).to.equal(pm.collectionVariables.get('basketId')));",
          expectField('transactionStatus', ['ACCC', 'ACSC', 'ACCP']),
        ],
      },
    ],
  },
  {
    name: '4. Account information',
    description:
      "A consent, the PSU's approval (scope AIS:{consentId}), then the accounts, balances and transactions.",
    steps: [
      clientToken('AIS'),
      {
        name: 'Ask for a consent',
        operationId: 'createConsent',
        auth: 'token',
        body: { example: 'allAccounts' },
        status: 200,
        after: [json, expectField('consentStatus', ['received']), set('consentId', 'body.consentId')],
      },
      ...redirectAuthorization('AIS:{{consentId}}'),
      {
        name: 'List the accounts',
        operationId: 'listAccounts',
        auth: 'psuToken',
        status: 200,
        after: [
          json,
          "pm.test('accounts are listed', () => pm.expect(body.accounts).to.be.an('array').that.is.not.empty);",
          set('accountId', 'body.accounts[0].accountId'),
        ],
      },
      {
        name: 'Read the balances',
        operationId: 'getBalances',
        auth: 'psuToken',
        path: { accountId: '{{accountId}}' },
        status: 200,
      },
      {
        name: 'Read the transactions',
        operationId: 'getTransactions',
        auth: 'psuToken',
        path: { accountId: '{{accountId}}' },
        status: 200,
      },
    ],
  },
  {
    name: '5. Funds confirmation',
    description: 'Is an amount available on an account now: true or false.',
    steps: [
      clientToken('PIS'),
      {
        name: 'Confirm funds',
        operationId: 'confirmFunds',
        auth: 'token',
        body: { example: 'account' },
        status: 200,
        after: [
          json,
          "pm.test('fundsAvailable is true', () => pm.expect(body.fundsAvailable).to.equal(true));",
        ],
      },
    ],
  },
];

/** The values a TPP starts with: where the service is and the sandbox app's identity. */
export interface CollectionValues {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly redirectUri: string;
}

/** The committed collection's values: `npm start`'s sandbox; the client id is the one to fill in. */
export const COMMITTED_VALUES: CollectionValues = {
  baseUrl: 'http://localhost:3000',
  clientId: '',
  redirectUri: 'http://localhost:3000/sandbox/callback',
};

/** Where the committed collection is, from the repository's root. */
export const COMMITTED_COLLECTION = 'docs/psd2-gateway.postman_collection.json';

const VARIABLES = {
  psuIpAddress: ['192.0.2.1', "The PSU device's address, sent as PSU-IP-Address"],
  token: ['', 'Set by the client-credentials token requests'],
  psuToken: ['', "Set by the code exchange or the decoupled poll: the PSU's token"],
  paymentId: ['', 'Set by the initiations'],
  code: ['', 'Set by the authorize requests'],
  sessionId: ['', 'Set by the decoupled start'],
  sleepTime: ['0', 'Set by the decoupled start and polls'],
  polls: ['0', 'Counts the decoupled polls'],
  basketId: ['', 'Set by the basket initiation'],
  consentId: ['', 'Set by the consent request'],
  accountId: ['', 'Set by the account list'],
} as const;

/** The collection of a document, with the flows first and every operation after. */
export function postmanCollection(document: OpenApiDocument, values: CollectionValues): Json {
  const operations = operationsById(document);
  return {
    info: {
      name: document.info.title,
      description: `The flows of the contract, in order, then every operation by tag. Generated from the OpenAPI document (version ${document.info.version}). Set baseUrl, clientId and redirectUri (from GET /sandbox/test-data), or import it from GET /sandbox/collection, which fills them in.`,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    variable: [
      variable('baseUrl', values.baseUrl, 'Where the service is: its origin (the paths carry any base path)'),
      variable('clientId', values.clientId, "The sandbox app's client_id (GET /sandbox/test-data)"),
      variable('redirectUri', values.redirectUri, "The sandbox app's redirect URI"),
      ...Object.entries(VARIABLES).map(([key, [value, description]]) => variable(key, value, description)),
    ],
    item: [
      ...FLOWS.map((flow) => ({
        name: flow.name,
        description: flow.description,
        item: flow.steps.map((step) => request(step, operations)),
      })),
      {
        name: 'Every operation',
        description: 'By tag, for reference: the flows above wire them.',
        item: reference(document, operations),
      },
    ],
  };
}

function variable(key: string, value: string, description: string): Json {
  return { key, value, type: 'string', description };
}

interface Located {
  readonly method: string;
  readonly path: string;
  readonly operation: Operation;
}

function operationsById(document: OpenApiDocument): Map<string, Located> {
  const operations = new Map<string, Located>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation.operationId !== undefined)
        operations.set(operation.operationId, { method: method.toUpperCase(), path, operation });
    }
  }
  return operations;
}

/** The value a documented header gets unless a step says otherwise; undefined: not sent. */
function headerValue(parameter: Parameter): string | undefined {
  switch (parameter.name) {
    case 'X-Gateway-Client-Id':
      return '{{clientId}}';
    case 'TPP-Request-ID':
    case 'TPP-Transaction-ID':
      return '{{$guid}}';
    case 'PSU-IP-Address':
      return '{{psuIpAddress}}';
    case 'Country':
      return 'SE';
    default:
      return parameter.required === true ? '' : undefined;
  }
}

function request(step: Step, operations: Map<string, Located>): Json {
  const located = operations.get(step.operationId);
  if (located === undefined) throw new Error(`the document has no operation ${step.operationId}`);
  const { method, path, operation } = located;
  const scripts = [
    `pm.test('answers ${step.status}', () => pm.response.to.have.status(${step.status}));`,
    ...(step.after ?? []),
  ];
  return {
    name: step.name,
    event: [
      ...(step.before === undefined
        ? []
        : [{ listen: 'prerequest', script: { type: 'text/javascript', exec: step.before } }]),
      { listen: 'test', script: { type: 'text/javascript', exec: scripts } },
    ],
    // The authorize redirect is the answer itself: not followed.
    ...(step.status >= 300 && step.status < 400
      ? { protocolProfileBehavior: { followRedirects: false } }
      : {}),
    request: {
      method,
      description: operation.summary ?? '',
      ...(step.auth === undefined
        ? {}
        : {
            auth: { type: 'bearer', bearer: [{ key: 'token', value: `{{${step.auth}}}`, type: 'string' }] },
          }),
      header: headers(operation, step.headers),
      url: url(path, step.path ?? {}, step.query ?? {}),
      ...body(operation, step),
    },
  };
}

function headers(operation: Operation, given: Record<string, string> = {}): Json[] {
  const documented = (operation.parameters ?? []).filter((parameter) => parameter.in === 'header');
  const list: Json[] = [];
  for (const parameter of documented) {
    const value = given[parameter.name] ?? headerValue(parameter);
    if (value !== undefined) list.push({ key: parameter.name, value });
  }
  return list;
}

function url(path: string, params: Record<string, string>, query: Record<string, string>): Json {
  const filled = path.replace(/\{([^}]+)\}/g, (_match, name: string) => params[name] ?? `{{${name}}}`);
  const search = Object.entries(query);
  const raw = `{{baseUrl}}${filled}${search.length === 0 ? '' : `?${search.map(([key, value]) => `${key}=${value}`).join('&')}`}`;
  return {
    raw,
    host: ['{{baseUrl}}'],
    path: filled.split('/').filter((segment) => segment !== ''),
    ...(search.length === 0 ? {} : { query: search.map(([key, value]) => ({ key, value })) }),
  };
}

function body(operation: Operation, step: Pick<Step, 'body'>): Json {
  const given = step.body;
  if (given === undefined) return {};
  if ('form' in given) {
    return {
      body: {
        mode: 'urlencoded',
        urlencoded: Object.entries(given.form).map(([key, value]) => ({ key, value, type: 'text' })),
      },
    };
  }
  const value = 'json' in given ? given.json : exampleOf(operation, given.example);
  return {
    body: { mode: 'raw', raw: JSON.stringify(value, null, 2), options: { raw: { language: 'json' } } },
  };
}

function exampleOf(operation: Operation, name: string): unknown {
  const example = operation.requestBody?.content['application/json']?.examples?.[name];
  if (example === undefined) throw new Error(`${operation.operationId} has no example ${name}`);
  return example.value;
}

/** Every operation by tag, its variables unwired: the first example as its body. */
function reference(document: OpenApiDocument, operations: Map<string, Located>): Json[] {
  const byTag = new Map<string, Json[]>();
  for (const [operationId, { operation }] of operations) {
    const tag = operation.tags?.[0] ?? 'Other';
    const content = operation.requestBody?.content ?? {};
    const form = 'application/x-www-form-urlencoded' in content;
    const first = Object.keys(content['application/json']?.examples ?? {})[0];
    const step: Step = {
      name: operation.summary ?? operationId,
      operationId,
      ...(operation.security === undefined ? {} : { auth: 'token' as const }),
      ...(form ? { body: { form: {} } } : first === undefined ? {} : { body: { example: first } }),
      status: 200,
    };
    const item = request(step, operations);
    // Reference requests carry no tests: their answers depend on what comes before.
    byTag.set(tag, [...(byTag.get(tag) ?? []), { ...item, event: [] }]);
  }
  return (document.tags ?? [])
    .filter((tag) => byTag.has(tag.name))
    .map((tag) => ({ name: tag.name, description: tag.description ?? '', item: byTag.get(tag.name) }));
}
