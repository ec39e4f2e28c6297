// The tests' check that every answer is one its route documents: the status is among the route's
// response schemas, and the body (JSON) matches that status's schema, or the media type is the one
// documented. An answer that does not is turned into a 500 naming the mismatch, so that the test that
// received it fails. Off in production (buildApp's checkAnswers).
import { type TSchema, TypeGuard } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiErrorBody } from './errors.ts';

type ResponseSchemas = Record<string, unknown>;

/** What a route documents for one status. */
function documented(schemas: ResponseSchemas, status: number): unknown {
  return schemas[String(status)] ?? schemas[`${String(status)[0]}xx`] ?? schemas.default;
}

export function registerAnswerCheck(app: FastifyInstance, references: readonly TSchema[]): void {
  const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();
  const checkerOf = (schema: TSchema) => {
    let checker = compiled.get(schema);
    if (checker === undefined) {
      checker = TypeCompiler.Compile(schema, [...references]);
      compiled.set(schema, checker);
    }
    return checker;
  };

  app.addHook('onSend', async (request, reply, payload) => {
    const problem = mismatch(request, reply, payload, checkerOf);
    if (problem === undefined) return payload;
    request.log.error({ problem }, 'an answer does not match its documented schema');
    reply.code(500).type('application/json; charset=utf-8');
    return JSON.stringify(
      apiErrorBody(500, [{ code: 'INTERNAL_ERROR', text: `undocumented answer: ${problem}` }]),
    );
  });
}

function mismatch(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  checkerOf: (schema: TSchema) => TypeCheck<TSchema>,
): string | undefined {
  const schema = request.routeOptions.schema as { hide?: boolean; response?: ResponseSchemas } | undefined;
  // No route (the not-found handler), a HEAD, or the docs page's own files: nothing documented to hold to.
  if (schema === undefined || schema.hide === true || request.method === 'HEAD') return undefined;
  const where = `${request.method} ${request.routeOptions.url} answered ${reply.statusCode}`;
  if (schema.response === undefined) return `${where}: the route documents no answers`;
  const expected = documented(schema.response, reply.statusCode) as
    | (TSchema & { content?: Record<string, unknown>; type?: string })
    | undefined;
  if (expected === undefined) return `${where}: a status the route does not document`;
  const mediaType = String(reply.getHeader('content-type') ?? '')
    .split(';')[0]!
    .trim();
  if (expected.content !== undefined) {
    return mediaType in expected.content
      ? undefined
      : `${where}: ${mediaType || 'no media type'}, not documented`;
  }
  if (expected.type === 'null') {
    const empty = payload === undefined || payload === null || payload === '';
    return empty ? undefined : `${where}: a body where none is documented`;
  }
  if (!TypeGuard.IsSchema(expected)) return `${where}: its schema is not a TypeBox schema`;
  if (mediaType !== 'application/json') return `${where}: ${mediaType || 'no media type'}, not JSON`;
  const body = typeof payload === 'string' ? JSON.parse(payload) : payload;
  const checker = checkerOf(expected);
  if (checker.Check(body)) return undefined;
  const first = [...checker.Errors(body)][0];
  return `${where}: ${first?.path || 'the body'} ${first?.message ?? 'does not match'}`;
}
