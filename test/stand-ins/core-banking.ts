// A stand-in for a bank's core banking system: a real HTTP(S) server on 127.0.0.1, port 0, serving
// docs/core-banking-api.yaml over an in-memory book (core-banking-book.ts). Its routes are the
// document's operations, and every request is validated against the document's schemas and every
// answer against the documented answer of its status: whatever breaks the contract, on either side,
// is kept in `violations`. It fails on purpose when scripted: 5xx before or after booking, an answer
// too late (booked, the answer lost), the connection dropped after booking, each request handled twice,
// the order kept "in progress", or the answer held until the test releases it.

import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { AjvCompiler } from '@fastify/ajv-compiler';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { refusedPort } from '../helpers/ports.ts';
import { InMemoryBook, type Order, type Outcome } from './core-banking-book.ts';

export const CONTRACT = new URL('../../docs/core-banking-api.yaml', import.meta.url).pathname;

export type Fault =
  | { readonly kind: 'fail-before'; readonly status?: number }
  | { readonly kind: 'fail-after'; readonly status?: number }
  | { readonly kind: 'answer-late'; readonly ms: number }
  | { readonly kind: 'drop-after' }
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'in-progress'; readonly ms: number }
  | { readonly kind: 'hold' };

type Schema = Record<string, unknown>;
type Validate = ((data: unknown) => boolean) & { errors?: unknown };
interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema: Schema;
}
interface Operation {
  readonly operationId: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { content: Record<string, { schema: Schema }> };
  readonly responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

const compile = AjvCompiler()({}, {
  customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, strict: false },
} as never) as unknown as (route: { schema: Schema }) => Validate;

/** The parameters of one place (path, query, header) as one object schema, as Fastify validates them. */
function parametersSchema(operation: Operation, place: string): Schema | undefined {
  const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === place);
  if (parameters.length === 0) return undefined;
  const name = (parameter: Parameter) => (place === 'header' ? parameter.name.toLowerCase() : parameter.name);
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((parameter) => [name(parameter), parameter.schema])),
    required: parameters.filter((parameter) => parameter.required).map(name),
  };
}

export interface StandInOptions {
  /** Serve HTTPS; with `clientCa`, only to clients with a certificate it issued (mutual TLS). */
  readonly tls?: { readonly cert: string; readonly key: string; readonly clientCa?: string };
}

export interface CoreBankingStandIn {
  readonly url: string;
  readonly book: InMemoryBook;
  /** Every request as it came: its operation, method, path and Idempotency-Key header. */
  readonly requests: { operation: string; method: string; path: string; key: string | undefined }[];
  /** Requests and answers that break the contract. */
  readonly violations: string[];
  /** Faults for the next booking requests (or every request, `on: 'all'`), one request each, in order. */
  script(fault: Fault, times?: number, on?: 'bookings' | 'all'): void;
  /** Answers the held requests. */
  release(): void;
  close(): Promise<void>;
}

export async function startCoreBankingStandIn(options: StandInOptions = {}): Promise<CoreBankingStandIn> {
  const document = (await SwaggerParser.dereference(CONTRACT)) as unknown as {
    paths: Record<string, Record<string, Operation>>;
  };
  const book = new InMemoryBook();
  const orders = new Map<string, { order: unknown; outcome: Outcome | undefined }>();
  const requests: CoreBankingStandIn['requests'] = [];
  const violations: string[] = [];
  const faults: { fault: Fault; on: 'bookings' | 'all' }[] = [];
  const held: (() => void)[] = [];
  const app = Fastify({
    forceCloseConnections: true,
    ...(options.tls === undefined
      ? {}
      : {
          https: {
            cert: options.tls.cert,
            key: options.tls.key,
            ...(options.tls.clientCa === undefined
              ? {}
              : { ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: true }),
          },
        }),
  });
  // Bodies exactly as sent; parameters coerced from text as the document's types say.
  app.setValidatorCompiler(
    ({ schema, httpPart }) =>
      (httpPart === 'body' ? compile : coercing)({ schema: schema as Schema }) as never,
  );
  const coercing = AjvCompiler()({}, { customOptions: { strict: false } } as never) as unknown as (route: {
    schema: Schema;
  }) => Validate;
  const answerChecks = new Map<string, Validate>();

  function answer(reply: FastifyReply, operation: Operation, status: number, body: object) {
    const documented =
      operation.responses[String(status)] ?? operation.responses[`${String(status).slice(0, 1)}XX`];
    const [type, media] = Object.entries(documented?.content ?? {})[0] ?? [];
    if (documented === undefined || media === undefined) {
      violations.push(`${operation.operationId} answered ${status}, which it does not document`);
    } else {
      const id = `${operation.operationId} ${status}`;
      const check = answerChecks.get(id) ?? compile({ schema: media.schema });
      answerChecks.set(id, check);
      if (!check(body)) violations.push(`${id}: ${JSON.stringify(check.errors)}`);
    }
    return reply
      .code(status)
      .type(type ?? 'application/json')
      .send(body);
  }

  const problem = (status: number, code: string, title: string) => ({ status, title, code });

  function nextFault(isBooking: boolean): Fault | undefined {
    const index = faults.findIndex((entry) => entry.on === 'all' || isBooking);
    return index === -1 ? undefined : faults.splice(index, 1)[0]!.fault;
  }

  /** Books an order, or answers what its key answered: 201 decided now, 200 decided before; 409, 422. */
  async function bookOnce(order: Order, delayDecision = 0): Promise<[number, object]> {
    const earlier = orders.get(order.key);
    if (earlier !== undefined) {
      if (!isDeepStrictEqual(earlier.order, order))
        return [422, problem(422, 'IDEMPOTENCY_KEY_REUSED', 'the key was used for another order')];
      if (earlier.outcome === undefined)
        return [409, problem(409, 'ORDER_IN_PROGRESS', 'the order is still being decided')];
      return [200, earlier.outcome];
    }
    const entry = { order: structuredClone(order), outcome: undefined as Outcome | undefined };
    orders.set(order.key, entry);
    if (delayDecision > 0) await sleep(delayDecision);
    entry.outcome = book.decide(order);
    return [201, entry.outcome];
  }

  const handlers: Record<
    string,
    (request: FastifyRequest, operation: Operation, reply: FastifyReply) => unknown
  > = {
    getAccount: (request, operation, reply) => {
      const account = book.accounts.get((request.params as { accountId: string }).accountId)?.account;
      return found(reply, operation, account);
    },
    lookUpAccount: (request, operation, reply) => {
      const body = request.body as { iban?: string; country?: string; bban?: string };
      const account =
        body.iban !== undefined ? book.findByIban(body.iban) : book.findByBban(body.country!, body.bban!);
      return found(reply, operation, account);
    },
    lookUpCustomer: (request, operation, reply) =>
      found(reply, operation, book.customers.get((request.body as { psuId: string }).psuId)),
    listCustomerAccounts: (request, operation, reply) =>
      answer(reply, operation, 200, { accounts: book.accountsOf((request.body as { psuId: string }).psuId) }),
    listCustomerCardAccounts: (request, operation, reply) =>
      answer(reply, operation, 200, {
        cardAccounts: book.cardAccountsOf((request.body as { psuId: string }).psuId),
      }),
    listCards: (request, operation, reply) => {
      const ids = [(request.query as { accountId: string | string[] }).accountId].flat();
      return answer(reply, operation, 200, { cards: book.cardsOf(ids) });
    },
    getCardAccount: (request, operation, reply) => {
      const cardAccount = book.cardAccounts.get((request.params as { cardAccountId: string }).cardAccountId);
      if (cardAccount === undefined) return found(reply, operation, undefined);
      const { balanceMinor: _, ...record } = cardAccount;
      return found(reply, operation, record);
    },
    getBalances: (request, operation, reply) => {
      const ids = [(request.query as { accountId: string | string[] }).accountId].flat();
      const balances = ids.flatMap((accountId) => {
        const bookedMinor = book.balanceOf(accountId);
        return bookedMinor === undefined ? [] : [{ accountId, bookedMinor }];
      });
      return answer(reply, operation, 200, { balances });
    },
    getStatement: (request, operation, reply) => {
      const { from, to, limit } = request.query as { from: string; to: string; limit: number };
      const lines = book.statementOf((request.params as { accountId: string }).accountId, from, to, limit);
      return found(reply, operation, lines && { lines });
    },
    getAvailableFunds: (request, operation, reply) => {
      const body = request.body as { iban?: string; cardNumber?: string };
      return found(
        reply,
        operation,
        body.iban !== undefined ? book.fundsOfIban(body.iban) : book.fundsOfCard(body.cardNumber!),
      );
    },
    bookOrder: async (request, operation, reply) => {
      const order = request.body as Order;
      if (request.headers['idempotency-key'] !== order.key)
        return answer(reply, operation, 400, problem(400, 'FORMAT_ERROR', 'Idempotency-Key is not the key'));
      const fault = nextFault(true);
      if (fault?.kind === 'fail-before') return failure(reply, operation, fault.status);
      let [status, body] = await bookOnce(order, fault?.kind === 'in-progress' ? fault.ms : 0);
      if (fault?.kind === 'duplicate') [status, body] = await bookOnce(order);
      if (fault?.kind === 'fail-after') return failure(reply, operation, fault.status);
      if (fault?.kind === 'drop-after') {
        reply.hijack();
        request.raw.socket.destroy();
        return;
      }
      if (fault?.kind === 'answer-late') await sleep(fault.ms);
      if (fault?.kind === 'hold') await new Promise<void>((resolve) => held.push(resolve));
      return answer(reply, operation, status, body);
    },
  };

  function found(reply: FastifyReply, operation: Operation, body: object | undefined) {
    return body === undefined
      ? answer(reply, operation, 404, problem(404, 'RESOURCE_UNKNOWN', 'the bank has no such thing'))
      : answer(reply, operation, 200, body);
  }

  function failure(reply: FastifyReply, operation: Operation, status = 503) {
    return answer(reply, operation, status, problem(status, 'SERVICE_UNAVAILABLE', 'try again later'));
  }

  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const schema = Object.fromEntries(
        [
          ['params', parametersSchema(operation, 'path')],
          ['querystring', parametersSchema(operation, 'query')],
          ['headers', parametersSchema(operation, 'header')],
          ['body', operation.requestBody?.content['application/json']?.schema],
        ].filter(([, part]) => part !== undefined),
      );
      app.route({
        method: method.toUpperCase() as 'GET' | 'POST',
        url: path.replace(/\{(\w+)\}/g, ':$1'),
        schema,
        onRequest: async (request, reply) => {
          const key = request.headers['idempotency-key'];
          requests.push({
            operation: operation.operationId,
            method: request.method,
            path: request.url,
            key: typeof key === 'string' ? key : undefined,
          });
          if (operation.operationId !== 'bookOrder') {
            const fault = nextFault(false);
            if (fault?.kind === 'fail-before') return failure(reply, operation, fault.status);
          }
        },
        handler: (request, reply) => handlers[operation.operationId]!(request, operation, reply),
        errorHandler: (error, request, reply) => {
          violations.push(`${request.method} ${request.url}: ${error.message}`);
          return answer(reply, operation, 400, problem(400, 'FORMAT_ERROR', error.message));
        },
      });
    }
  }
  app.setNotFoundHandler((request, reply) => {
    violations.push(`${request.method} ${request.url} is no operation of the contract`);
    return reply.code(404).send({ status: 404, title: 'no such endpoint', code: 'FORMAT_ERROR' });
  });

  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const release = () => {
    for (const resolve of held.splice(0)) resolve();
  };
  return {
    url: options.tls === undefined ? address : address.replace('127.0.0.1', 'localhost'),
    book,
    requests,
    violations,
    script(fault, times = 1, on = 'bookings') {
      for (let count = 0; count < times; count++) faults.push({ fault, on });
    },
    release,
    async close() {
      release();
      await app.close();
    },
  };
}

/** The origin of a core banking system that is stopped (test/helpers/ports.ts). */
export async function stoppedOrigin(): Promise<string> {
  return `http://127.0.0.1:${await refusedPort()}`;
}
