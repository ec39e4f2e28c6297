// The Fastify instance routes are registered on: typed by the TypeBox type provider, so that a
// handler's params, query, headers and body are the types of its route's schemas (no route generics).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * What a use case answers, as the route's schema types it: the same value with its readonly marks
 * dropped (use cases answer readonly records; schema types are mutable). Only the type changes.
 */
export type Body<T> = T extends readonly (infer Item)[]
  ? Body<Item>[]
  : T extends object
    ? { -readonly [K in keyof T]: Body<T[K]> }
    : T;

export function asBody<T>(value: T): Body<T> {
  return value as Body<T>;
}

/**
 * A use case's answer on a typed route: its status set on the reply, its body returned (serialized by
 * the route's response schema of that status). The one place a status the use case chose meets the
 * route's declared statuses.
 */
export function answerWith<T>(
  reply: object,
  answer: { readonly statusCode: number; readonly body: T },
): Body<T> {
  (reply as FastifyReply).code(answer.statusCode);
  return asBody(answer.body);
}
