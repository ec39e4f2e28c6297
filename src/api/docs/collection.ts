// A Postman collection (v2.1) generated from the OpenAPI document: the flows of the contract in order,
// each request taken from its operation (method, path, documented headers, example body) and wired to
// the ones before it by variables (token -> paymentId -> code -> PSU token), with a test per request;
// then every operation by tag, for reference. Served at /sandbox/collection with the sandbox's own
// base URL, client id and redirect URI; committed as docs/psd2-gateway.postman_collection.json.
//
// Its parts are in collection/: document.ts (the document's operations by id), steps.ts and flows.ts
// (the flows of the contract), requests.ts (a Postman request from an operation and a step).
import { type Json, type OpenApiDocument, operationsById } from './collection/document.ts';
import { FLOWS } from './collection/flows.ts';
import { reference, request } from './collection/requests.ts';

export type { OpenApiDocument } from './collection/document.ts';

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
