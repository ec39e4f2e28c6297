// The contract as a document: GET /openapi.json and /openapi.yaml (OpenAPI 3.1, generated from the
// route schemas), the docs page at /docs (Swagger UI, its assets served from the package: no CDN), and
// GET / naming where everything is.
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/shared/context.ts';
import { VERSION } from '../../version.ts';
import { baseUrlOf, originOf } from '../base-url.ts';
import { REDIRECT } from '../oauth/answers.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { answer } from '../shared/schemas.ts';
import { wantsPage } from '../shared/wants-page.ts';
import { type OpenApiDocument, postmanCollection } from './collection.ts';
import { forTrying, type SandboxApp, withoutEmptyFields } from './try-it-out.ts';

const Index = Type.Object({
  service: Type.Literal('psd2-gateway'),
  version: Type.String({ examples: [VERSION] }),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
  links: Type.Object({
    docs: Type.String({ description: 'The docs page' }),
    openapi: Type.String({ description: 'This document, JSON' }),
    openapiYaml: Type.String({ description: 'This document, YAML' }),
    health: Type.String(),
    sandbox: Type.Optional(Type.String({ description: 'Sandbox: the test data page' })),
  }),
});

/** Sandbox: the seeded app, whose client id and redirect URI the served collection carries. */
export type SandboxAppOf = () => Promise<SandboxApp | undefined>;

export async function docsRoutes(
  app: Api,
  context: ServiceContext,
  { route }: Pipelines,
  sandboxApp: SandboxAppOf | undefined,
): Promise<void> {
  const { config } = context;

  app.get(
    '/openapi.json',
    route({
      schema: {
        summary: 'This API as an OpenAPI 3.1 document (JSON)',
        operationId: 'getOpenApiJson',
        tags: ['Service'],
        response: {
          200: answer(Type.Object({}, { additionalProperties: true }), 'The OpenAPI 3.1 document'),
        },
      },
      handler: (_request, reply) => {
        reply.header('Cache-Control', 'no-cache');
        return app.swagger();
      },
    }),
  );

  app.get(
    '/openapi.yaml',
    route({
      schema: {
        summary: 'This API as an OpenAPI 3.1 document (YAML)',
        operationId: 'getOpenApiYaml',
        tags: ['Service'],
        response: {
          200: {
            description: 'The OpenAPI 3.1 document',
            content: { 'application/yaml': { schema: Type.String() } },
          },
        },
      },
      handler: (_request, reply) => {
        reply.header('Cache-Control', 'no-cache').type('application/yaml; charset=utf-8');
        return app.swagger({ yaml: true });
      },
    }),
  );

  app.get(
    '/',
    route({
      schema: {
        summary: 'Where the docs, the document and (sandbox) the test data are',
        description:
          'JSON for a client; a browser (Accept: text/html before application/json) is sent to the sandbox page, which links the docs page, or live to the docs page.',
        operationId: 'getIndex',
        tags: ['Service'],
        response: {
          200: answer(Index, 'Links to the docs page, the document and the sandbox page'),
          302: REDIRECT('A browser: to the sandbox page (sandbox) or the docs page (live)'),
        },
      },
      handler: (request, reply) => {
        // A path from the origin, not the request's Host: a browser stays where it is.
        if (wantsPage(request))
          return reply.redirect(`${config.basePath}${context.policy.sandboxTools ? '/sandbox' : '/docs'}`);
        const base = baseUrlOf(config, request);
        return {
          service: 'psd2-gateway' as const,
          version: VERSION,
          mode: context.policy.mode,
          links: {
            docs: `${base}/docs`,
            openapi: `${base}/openapi.json`,
            openapiYaml: `${base}/openapi.yaml`,
            health: `${base}/healthz`,
            ...(context.policy.sandboxTools ? { sandbox: `${base}/sandbox` } : {}),
          },
        };
      },
    }),
  );

  if (sandboxApp !== undefined) {
    app.get(
      '/sandbox/collection',
      route({
        schema: {
          summary: 'The flows as a Postman collection (v2.1), for this sandbox',
          description:
            "Import it in Postman (or run it with newman): the flows in order, wired by variables, with this sandbox's base URL, client id and redirect URI filled in.",
          operationId: 'getSandboxCollection',
          tags: ['Sandbox'],
          response: {
            200: answer(Type.Object({}, { additionalProperties: true }), 'The Postman collection'),
          },
        },
        handler: async (request, reply) => {
          const seeded = await sandboxApp();
          reply.header('Cache-Control', 'no-cache');
          return postmanCollection(app.swagger() as unknown as OpenApiDocument, {
            baseUrl: originOf(config, request),
            clientId: seeded?.clientId ?? '',
            redirectUri: seeded?.redirectUri ?? '',
          });
        },
      }),
    );
  }

  // Swagger UI from the package's own files. It serves the document again at /docs/json, made to be
  // tried (try-it-out.ts): with this sandbox's app, read when the page loads it.
  const pageApps = new WeakMap<FastifyRequest, SandboxApp | undefined>();
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      deepLinking: true,
      docExpansion: 'list',
      validatorUrl: null,
      tryItOutEnabled: true,
      requestInterceptor: withoutEmptyFields,
    },
    uiHooks: {
      preHandler: async (request) => {
        if (sandboxApp !== undefined && /\/docs\/(json|yaml)$/.test(request.routeOptions.url ?? ''))
          pageApps.set(request, await sandboxApp());
      },
    },
    transformSpecification: (document, request) => forTrying(document, pageApps.get(request)),
  });
}
