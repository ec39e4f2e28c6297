// GET /psd2/v1/notifications: the calling app's recent status notifications with every delivery
// attempt (issue 41, docs/notifications.md "Seeing deliveries").
import { Type } from '@sinclair/typebox';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { PAYMENT_PRODUCTS_ALL } from '../../services/access/live-access.ts';
import { listAppNotifications, MAX_LISTED } from '../../services/notifications/listing.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { type Api, asBody } from '../shared/api.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import {
  answer,
  apiErrors,
  BEARER,
  BODY_ERRORS,
  TPP_CALL_ERRORS,
  tppHeaderSchema,
} from '../shared/schemas.ts';
import { tppHeaders } from '../shared/tpp-app.ts';

const Attempt = Type.Object({
  attempt: Type.Integer({ description: 'From 1' }),
  at: Type.String({ description: 'When it was sent (ISO 8601)' }),
  statusCode: Type.Optional(Type.Integer({ description: "The receiver's HTTP status, when it answered" })),
  error: Type.Optional(
    Type.String({
      description:
        'Why there was no answer: timeout, connection refused, connection reset, connection failed, tls failed, name not resolved, refused address',
    }),
  ),
  durationMs: Type.Integer(),
});

const Notification = Type.Object({
  notificationId: Type.String({ description: 'The id every attempt of this notification carries' }),
  resourceType: Type.String({ description: 'payment, basket or consent' }),
  resourceId: Type.String(),
  uri: Type.String({ description: 'Where it is sent (the TPP-Notification-URI)' }),
  content: Type.String({ description: 'SCA, PROCESS or LAST: which preference it answers' }),
  status: Type.String({ description: 'The new status' }),
  previousStatus: Type.Optional(Type.String()),
  state: Type.String({ description: 'pending (to be sent or sent again), delivered or abandoned' }),
  createdAt: Type.String(),
  deliveredAt: Type.Optional(Type.String()),
  nextAttemptAt: Type.Optional(Type.String({ description: 'Pending: when it is sent (again)' })),
  attempts: Type.Array(Attempt),
});

/** Every product a subscribing resource is of: any of them lets an app read its notifications (live). */
const PRODUCTS = [
  ...PAYMENT_PRODUCTS_ALL,
  'consents',
  'accounts-gb',
  'accounts-lu-individual',
  'accounts-lu-corporate',
];

export function notificationRoutes(app: Api, context: ServiceContext, { route, limits }: Pipelines): void {
  app.get(
    '/psd2/v1/notifications',
    route({
      onRequest: [
        limits.apiAddress,
        tppHeaders(context, { country: 'path', live: () => ({ role: ['PIS', 'AIS'], products: PRODUCTS }) }),
        bearer(context),
        limits.apiApp,
      ],
      schema: {
        summary: "List the app's status notifications",
        description: `The newest first, each with its delivery attempts and the receiver's answers; with a client-credentials token of scope PIS or AIS. At most ${MAX_LISTED}.`,
        operationId: 'listNotifications',
        tags: ['Notifications'],
        security: BEARER,
        headers: tppHeaderSchema(),
        querystring: Type.Object(
          {
            limit: Type.Optional(
              Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: `1 to ${MAX_LISTED}; default 20` }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: answer(Type.Object({ notifications: Type.Array(Notification) }), 'The newest notifications'),
          ...apiErrors(...TPP_CALL_ERRORS, ...BODY_ERRORS),
        },
      },
      retryReads: true,
      handler: async (request) =>
        asBody(
          await listAppNotifications(context, {
            app: tppOf(request).app,
            grant: grantOf(request),
            limit: request.query.limit === undefined ? undefined : Number(request.query.limit),
          }),
        ),
    }),
  );
}
