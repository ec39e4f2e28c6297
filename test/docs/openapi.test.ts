// The OpenAPI 3.1 document at /openapi.json and /openapi.yaml: valid (swagger-parser), complete (every
// route the app serves is an operation with a summary, an id, tags and its answers), examples that
// their schemas accept, and, live, the certificate in every operation's security. That the answers
// the suite receives match their schemas is checked on every call (test/helpers/gateway.ts,
// src/http/answer-check.ts); the last tests show that check catching a mismatch.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { TAGS } from '../../src/api/shared/openapi.ts';
import { buildApp } from '../../src/app.ts';
import { createCa, issueServerCertificate } from '../../src/certificates/issue.ts';
import { configWith } from '../../src/config.ts';
import { API_ERRORS } from '../../src/domain/errors.ts';
import { type Gateway, openTestStore, startGateway } from '../helpers/gateway.ts';

type Operation = {
  summary?: string;
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  requestBody?: {
    content: Record<string, { schema: object; examples?: Record<string, { value: unknown }> }>;
  };
  responses: Record<string, { description: string; content?: Record<string, { schema?: object }> }>;
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operationsOf(document: Document): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation]),
  );
}

/** A registered route as the document names it: "METHOD /path/{param}". */
const asOperation = (route: string) => route.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{*}');

/** The docs page itself (Swagger UI's page, scripts, styles, its copy of the document): not API operations. */
const isDocsPageFile = (route: string) => /^GET \/docs(\/.*)?$/.test(route);

/** Operations that only refuse: corporate signing baskets, and the decommissioned Swedish version 1. */
const ONLY_REFUSE =
  /^(POST \/psd2\/se\/v2\/payments\/corporate\/signing-basket|[A-Z]+ \/psd2\/se\/v1\/\{\*\})$/;

describe('the OpenAPI document', () => {
  let gateway: Gateway;
  let document: Document;

  before(async () => {
    // With a login provider, so that its routes (/psu/oidc/*) are held to the rules below too; the
    // document is built without calling it.
    const unused = () => Promise.reject(new Error('not called'));
    gateway = await startGateway({ psuIdentityProvider: { begin: unused, complete: unused } });
    const answer = await fetch(`${gateway.url}/openapi.json`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
    document = (await answer.json()) as Document;
  });
  after(() => gateway.close());

  test('is valid OpenAPI 3.1, and the YAML says the same', async () => {
    assert.equal(document.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(document) as never);
    const yaml = await fetch(`${gateway.url}/openapi.yaml`);
    assert.equal(yaml.status, 200);
    assert.equal(yaml.headers.get('content-type'), 'application/yaml; charset=utf-8');
    const file = join(await mkdtemp(join(tmpdir(), 'openapi-')), 'openapi.yaml');
    await writeFile(file, await yaml.text());
    assert.deepEqual(await SwaggerParser.parse(file), document);
    await rm(dirname(file), { recursive: true });
  });

  test('documents every route the app serves, and nothing else', () => {
    const served = gateway.routes
      .filter((route) => !route.startsWith('HEAD ') && !isDocsPageFile(route))
      .map(asOperation);
    const documented = operationsOf(document).map(([name]) => name);
    assert.deepEqual(documented.sort(), [...new Set(served)].sort());
  });

  test('every operation: a summary, a unique id, known tags, its parameters, and each answer described', () => {
    const problems: string[] = [];
    const ids = new Set<string>();
    const tags = TAGS.map((tag) => tag.name);
    for (const [name, operation] of operationsOf(document)) {
      if (!operation.summary) problems.push(`${name}: no summary`);
      if (!operation.operationId) problems.push(`${name}: no operationId`);
      else if (ids.has(operation.operationId))
        problems.push(`${name}: operationId ${operation.operationId} twice`);
      else ids.add(operation.operationId);
      if (!operation.tags?.length || !operation.tags.every((tag) => tags.includes(tag)))
        problems.push(`${name}: tags ${operation.tags}`);
      const path = name.split(' ')[1]!;
      for (const parameter of path.match(/\{[^}]+\}/g) ?? []) {
        const named = parameter.slice(1, -1);
        if (!operation.parameters?.some((p) => p.in === 'path' && p.name === named))
          problems.push(`${name}: path parameter ${named} undocumented`);
      }
      const statuses = Object.keys(operation.responses);
      if (!statuses.some((status) => /^[23]\d\d$/.test(status)) && !ONLY_REFUSE.test(name))
        problems.push(`${name}: no success answer`);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^\d{3}$/.test(status)) problems.push(`${name}: answer ${status} is not a status`);
        if (response.description === 'Default Response') problems.push(`${name} ${status}: not described`);
        if (status !== '204' && !status.startsWith('3') && response.content === undefined)
          problems.push(`${name} ${status}: no content`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('every call that takes a token says so, and the rest are the ones a TPP makes without one', () => {
    const open = operationsOf(document)
      .filter(([, operation]) => operation.security === undefined)
      .map(([, operation]) => operation.tags![0]);
    assert.deepEqual([...new Set(open)].sort(), [
      'Decoupled authorization',
      'OAuth',
      'Onboarding',
      'PSU pages',
      'Payments',
      'Sandbox',
      'Service',
    ]);
    // Of the payment operations, only the decommissioned version 1 takes no token.
    const payments = operationsOf(document).filter(
      ([, operation]) => operation.tags![0] === 'Payments' && operation.security === undefined,
    );
    assert.ok(
      payments.every(([name]) => name.includes('/psd2/se/v1/')),
      payments.map(([name]) => name).join(', '),
    );
    const onboarding = operationsOf(document).filter(
      ([, operation]) => operation.tags![0] === 'Onboarding' && operation.security === undefined,
    );
    assert.deepEqual(onboarding.map(([name]) => name).sort(), [
      'POST /psd2/v1/third-parties',
      'PUT /psd2/v1/third-parties',
    ]);
  });

  test('every error answer shows an example of its own status, in its shape', () => {
    const problems: string[] = [];
    let examples = 0;
    for (const [name, operation] of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          const shape = (media.schema as { $ref?: string } | undefined)?.$ref?.split('/').pop();
          if (shape !== 'ApiError' && shape !== 'OAuthError') continue;
          const where = `${name} ${status} ${type}`;
          const example = (media as { example?: Record<string, unknown> }).example;
          if (example === undefined) {
            problems.push(`${where}: no example`);
            continue;
          }
          examples += 1;
          // The codes a status answers are the ones its description names (e.g. "(invalid_client)").
          const named = (code: string) =>
            new RegExp(`\\b${code.replace(/_[A-Z]+$/, '_')}`).test(response.description);
          if (shape === 'OAuthError') {
            if (Object.keys(example).sort().join() !== 'error,error_description')
              problems.push(`${where}: not RFC 6749's shape`);
            if (!named(String(example.error))) problems.push(`${where}: ${example.error}`);
            continue;
          }
          const messages = example.tppMessages as { code: string }[];
          if (example.httpCode !== status || example.httpMessage !== STATUS_CODES[Number(status)])
            problems.push(`${where}: httpCode ${example.httpCode} ${example.httpMessage}`);
          for (const { code } of messages) {
            const own = API_ERRORS[code as keyof typeof API_ERRORS] === Number(status);
            if (!own && !named(code)) problems.push(`${where}: ${code}`);
          }
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(examples > 300, `only ${examples} error examples`);
  });

  test('every request example is accepted by its schema', () => {
    const compile = AjvCompiler()({}, { customOptions: { strict: false } } as never) as unknown as (route: {
      schema: object;
    }) => ((value: unknown) => boolean) & { errors?: unknown };
    const problems: string[] = [];
    let examples = 0;
    for (const [name, operation] of operationsOf(document)) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        const validate = compile({ schema: media.schema });
        for (const [example, { value }] of Object.entries(media.examples ?? {})) {
          examples += 1;
          if (!validate(value))
            problems.push(`${name} ${type} ${example}: ${JSON.stringify(validate.errors)}`);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(examples >= 10, `only ${examples} examples`);
  });
});

test('live: every operation asks for the TPP certificate too (mutual TLS)', async () => {
  const ca = await createCa();
  const server = await issueServerCertificate(ca, ['localhost', '127.0.0.1']);
  const gateway = await startGateway({
    config: { mode: 'live' },
    tls: { key: server.keyPem, cert: server.certificatePem, ca: ca.certificatePem },
  });
  try {
    const document = (await gateway.app
      .inject({ method: 'GET', url: '/openapi.json' })
      .then((answer) => answer.json())) as Document & { info: { title: string } };
    assert.equal(document.info.title, 'psd2-gateway (live)');
    const securities = operationsOf(document).map(([name, operation]) => [name, operation.security]);
    for (const [name, security] of securities) {
      if (security === undefined) continue;
      assert.ok(
        (security as Record<string, string[]>[]).every((requirement) => 'mutualTLS' in requirement),
        `${name}: ${JSON.stringify(security)}`,
      );
    }
    const enroll = operationsOf(document).find(([name]) => name === 'POST /psd2/v1/third-parties')![1];
    assert.deepEqual(enroll.security, [{ mutualTLS: [] }]);
    const initiate = operationsOf(document).find(
      ([name]) => name === 'POST /psd2/v1/payments/{paymentProduct}',
    )![1];
    assert.deepEqual(initiate.security, [{ bearerToken: [], mutualTLS: [] }]);
    // The docs page's copy fills in nothing of a sandbox: no client id, no redirect URI.
    const page = (await gateway.app
      .inject({ method: 'GET', url: '/docs/json' })
      .then((answer) => answer.json())) as Document;
    const filled = operationsOf(page).flatMap(([name, operation]) =>
      (operation.parameters ?? [])
        .filter((p) => ['X-Gateway-Client-Id', 'client_id', 'redirect_uri'].includes(p.name))
        .filter((p) => (p as { example?: unknown }).example !== undefined)
        .map((p) => `${name} ${p.name}`),
    );
    assert.deepEqual(filled, []);
  } finally {
    await gateway.close();
  }
});

describe('the answer check (tests only)', () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;

  before(async () => {
    const store = await openTestStore('pglite');
    app = await buildApp({
      config: configWith({ logLevel: 'silent', schedulerIntervalMs: 0 }),
      store,
      logger: pino({ level: 'silent' }),
      checkAnswers: true,
    });
    // fast-json-stringify writes what it is given; a pattern it does not check, the answer check does.
    const Answer = Type.Object({ status: Type.String({ pattern: '^ok$' }) });
    app.get(
      '/teapot',
      { schema: { summary: 'A test route', response: { 200: Answer } } },
      async (request, reply) => {
        const query = request.query as { answer?: string };
        // 418: a status the schema does not declare.
        if (query.answer === 'status') return reply.code(418 as 200).send({ status: 'ok' });
        return { status: query.answer === 'body' ? 'nope' : 'ok' };
      },
    );
    await app.ready();
    close = async () => {
      await app.close();
      await store.close();
    };
  });
  after(() => close());

  test('a documented answer passes', async () => {
    const answer = await app.inject({ method: 'GET', url: '/teapot' });
    assert.deepEqual([answer.statusCode, answer.json()], [200, { status: 'ok' }]);
  });

  for (const [kind, text] of [
    ['status', 'undocumented answer: GET /teapot answered 418: a status the route does not document'],
    ['body', "undocumented answer: GET /teapot answered 200: /status Expected string to match '^ok$'"],
  ] as const) {
    test(`an undocumented ${kind} becomes a 500 naming the mismatch`, async () => {
      const answer = await app.inject({ method: 'GET', url: `/teapot?answer=${kind}` });
      assert.equal(answer.statusCode, 500);
      assert.deepEqual(answer.json().tppMessages, [{ category: 'ERROR', code: 'INTERNAL_ERROR', text }]);
    });
  }
});
