// A Postman collection (v2.1) generated from the OpenAPI document: the flows of the contract in order,
// each request taken from its operation (method, path, documented headers, example body) and wired to
// the ones before it by variables (token -> paymentId -> code -> PSU token), with a test per request;
// then every operation, each wired and tested as well. Served at /sandbox/collection with the sandbox's own
// base URL, client id and redirect URI; committed as docs/psd2-gateway.postman_collection.json.
//
// Its parts are in collection/: document.ts (the document's operations by id), steps.ts and flows.ts
// (the flows of the contract), every-operation.ts (each operation at least once, in a working order),
// requests.ts (a Postman request from an operation and a step).
import { type Json, type OpenApiDocument, operationsById } from './collection/document.ts';
import { EVERY_OPERATION } from './collection/every-operation.ts';
import { FLOWS } from './collection/flows.ts';
import { request } from './collection/requests.ts';

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
  aisToken: ['', 'Set by the client-credentials token request of scope AIS'],
  refreshToken: ['', "Set by the code exchange of a consent: the PSU's refresh token"],
  consentIdGb: ['', 'Set by the GB consent request'],
  consentIdLu: ['', 'Set by the LU consent request'],
  psuTokenGb: ['', "Set by the GB consent's code exchange"],
  psuTokenLu: ['', "Set by the LU consent's code exchange"],
  accountIdV2: ['', 'Set by the v2 account list'],
  accountIdGb: ['', 'Set by the GB account list'],
  accountIdLu: ['', 'Set by the LU account list'],
  cardAccountId: ['', 'Set by the card-account list'],
  gbAccount: ['', "Set from GET /sandbox/test-data: the GB test PSU's account"],
  luIban: ['', "Set from GET /sandbox/test-data: the LU test PSU's IBAN"],
  corporateBban: ['', "Set from GET /sandbox/test-data: the corporate's SEK account"],
  corporateId: ['', "Set from GET /sandbox/test-data: the corporate's PSU-Corporate-ID"],
  gbCreditor: ['', 'Set from GET /sandbox/test-data: a British creditor'],
  sepaCreditor: ['', 'Set from GET /sandbox/test-data: a SEPA creditor'],
  tppId: ['', 'Set by the enrollment of a third party'],
  adminToken: ['', "Set by the TPP's PSD2-ADMIN token request"],
} as const;

/** The collection of a document, with the flows first and every operation after. */
export function postmanCollection(document: OpenApiDocument, values: CollectionValues): Json {
  const operations = operationsById(document);
  const wired = new Set(EVERY_OPERATION.flatMap((folder) => folder.steps.map((step) => step.operationId)));
  const missing = [...operations.keys()].filter((operationId) => !wired.has(operationId));
  if (missing.length > 0) {
    throw new Error(
      `"Every operation" has no request for ${missing.join(', ')} (collection/every-operation.ts)`,
    );
  }
  return {
    info: {
      name: document.info.title,
      description: `The flows of the contract, in order, then every operation. Generated from the OpenAPI document (version ${document.info.version}). Set baseUrl, clientId and redirectUri (from GET /sandbox/test-data), or import it from GET /sandbox/collection, which fills them in.`,
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
        description:
          'Each operation at least once, in an order that makes each answer as its test says: earlier requests set the variables later ones use.',
        item: EVERY_OPERATION.map((folder) => ({
          name: folder.name,
          description: folder.description,
          item: folder.steps.map((step) => request(step, operations)),
        })),
      },
    ],
  };
}

function variable(key: string, value: string, description: string): Json {
  return { key, value, type: 'string', description };
}
