// The bodies of the gateway's operations, by operation id, as the generated OpenAPI types give them
// (generated/openapi.ts, npm run client:types): what the client sends and what it reads back.
import type { operations } from './generated/openapi.ts';

export type OperationId = keyof operations;

type Content<Part, Type extends string> = Part extends {
  readonly content: { readonly [T in Type]: infer Body };
}
  ? Body
  : never;

type Responses<Op extends OperationId> = operations[Op]['responses'];

/** The JSON body of an operation's answer with one of the given statuses (those it has). */
export type AnswerOf<Op extends OperationId, Status extends number = 200> = {
  [S in keyof Responses<Op>]: S extends Status ? Content<Responses<Op>[S], 'application/json'> : never;
}[keyof Responses<Op>];

/** The JSON body an operation takes. */
export type JsonBodyOf<Op extends OperationId> = Content<
  NonNullable<operations[Op]['requestBody']>,
  'application/json'
>;

/** The form an operation takes (application/x-www-form-urlencoded). */
export type FormOf<Op extends OperationId> = Content<
  NonNullable<operations[Op]['requestBody']>,
  'application/x-www-form-urlencoded'
>;
