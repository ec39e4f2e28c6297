// The docs page's copy of the document (/docs/json), made to be tried: "Try it out" starts from values
// that work. A form field without an example starts empty, so that it is not sent (Swagger UI fills
// others with the word "string"); each operation gets TPP ids of its own, fresh on each load (the page
// would otherwise send one id for every call); authorize gets a fresh state; the corporate headers
// start empty (the examples are a private customer's). A sandbox also fills in
// its app: the client id (X-Gateway-Client-Id, client_id) and the redirect URI where the code is
// exchanged and authorized. /openapi.json stays the contract, with none of this.
import { randomBytes, randomUUID } from 'node:crypto';

/** The sandbox app whose values the page fills in. */
export interface SandboxApp {
  readonly clientId: string;
  readonly redirectUri: string;
}

type Schema = { type?: string; examples?: unknown[]; properties?: Record<string, Schema> };
interface Parameter {
  in: string;
  name: string;
  example?: unknown;
  schema?: Schema;
}
interface Operation {
  tags?: string[];
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
}

const FORM = 'application/x-www-form-urlencoded';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** Where the sandbox's authorize lands when tried here (the browser follows the redirect). */
const AUTHORIZE_NOTE =
  "\n\nOn this page: the browser follows the redirect. When redirect_uri is this sandbox's own callback page (the sandbox app's default), the answer shown is that page's JSON with the code and state: copy the code into the exchange (POST /redirect/oauth2/token/1.0). A redirect URI elsewhere shows as a failed fetch: read the code from the Location of the same call made with curl.";

/** The document as the docs page shows it; `document` is the page's own copy, changed in place. */
export function forTrying<T extends object>(document: T, sandbox: SandboxApp | undefined): T {
  for (const item of Object.values((document as Document).paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.has(method)) prepare(operation, sandbox);
    }
  }
  return document;
}

function prepare(operation: Operation, sandbox: SandboxApp | undefined): void {
  // Onboarding's X-Gateway-Client-Id is the TPP's id, not an app's.
  const ofApp = !(operation.tags ?? []).includes('Onboarding');
  const form = operation.requestBody?.content?.[FORM]?.schema?.properties;
  const grant = form?.grant_type?.examples?.[0];
  // The redirect URI where a code is asked for or exchanged; not beside another grant.
  const redirect = grant === undefined || grant === 'authorization_code';
  const fill: Record<string, string> =
    sandbox === undefined
      ? {}
      : {
          ...(ofApp ? { 'X-Gateway-Client-Id': sandbox.clientId, client_id: sandbox.clientId } : {}),
          ...(redirect ? { redirect_uri: sandbox.redirectUri } : {}),
        };
  for (const parameter of operation.parameters ?? []) {
    const value =
      parameter.in === 'header' && /^TPP-(Request|Transaction)-ID$/.test(parameter.name)
        ? randomUUID()
        : parameter.in === 'query' && parameter.name === 'state'
          ? randomBytes(8).toString('hex')
          : fill[parameter.name];
    if (value !== undefined) parameter.example = value;
    // Corporate headers make a private customer's call fail, and one Idempotency-Key shared by every
    // reader of the page would replay one reader's payment to the next: typed in by whoever needs them.
    else if (
      parameter.in === 'header' &&
      (parameter.name.startsWith('PSU-Corporate-ID') || parameter.name === 'Idempotency-Key')
    ) {
      delete parameter.example;
    }
  }
  for (const [name, property] of Object.entries(form ?? {})) {
    const value = fill[name];
    if (value !== undefined) property.examples = [value];
    else if (property.examples === undefined) property.examples = [''];
  }
  const authorize = operation.parameters?.some((p) => p.in === 'query' && p.name === 'response_type');
  if (sandbox !== undefined && authorize === true)
    operation.description = `${operation.description ?? ''}${AUTHORIZE_NOTE}`;
}

/**
 * The page's request interceptor (it runs in the browser: its source is the page's, so it uses nothing
 * outside itself): a form field left empty is not sent. Swagger UI sends every field of a form, empty
 * ones as `name=`.
 */
export function withoutEmptyFields(request: Record<string, unknown>): Record<string, unknown> {
  const headers = (request.headers ?? {}) as Record<string, string | undefined>;
  const type = headers['Content-Type'] ?? headers['content-type'] ?? '';
  if (typeof request.body === 'string' && type.startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(request.body);
    for (const [name, value] of [...form]) if (value === '') form.delete(name);
    request.body = form.toString();
  }
  return request;
}
