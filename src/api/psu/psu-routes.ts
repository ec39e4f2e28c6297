// The PSU's login and consent forms of the live redirect flow, and the simulator's pretend e-ID app.

import { normalizeIP } from '@fastify/rate-limit';
import { Type } from '@sinclair/typebox';
import { auditActorOf } from '../../http/audit-actor.ts';
import { eidIdentify, eidOpen, eidSign, eidStart } from '../../services/authorization/eid-app.ts';
import { submitConsent, submitLogin } from '../../services/authorization/psu-login.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { HTML_PAGE, REDIRECT } from '../oauth/answers.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { apiErrors } from '../shared/schemas.ts';
import { CSRF_COOKIE, cookieOf, type DatabaseUnavailable, psuPageErrors, sendPsuAnswer } from './reply.ts';

const field = (description: string) => Type.Optional(Type.String({ description }));
/** What every PSU form posts back: the request it belongs to and its CSRF token (also in a cookie). */
const FORM_FIELDS = {
  request: field('The authorization request the page belongs to'),
  csrf: field('The CSRF token of the page; the psu_csrf cookie carries it too'),
};
const LoginForm = Type.Object({
  ...FORM_FIELDS,
  psu_id: field('Personal number (12 digits) or customer id'),
  password: field('The password'),
});
const ConsentForm = Type.Object({ ...FORM_FIELDS, decision: field('approve or deny') });
export const FORM = ['application/x-www-form-urlencoded'];
/**
 * A page's 400: its HTML page (a form with a field given twice too); or, for a body that is no form at
 * all (none, or not an object: no browser posts that), the API's error body. 413 and 415: a body too
 * large or not a form. 503: a bank system the step needs, or the database, does not answer (reply.ts).
 */
export const pageErrors = (description: string) => ({
  400: {
    description: `${description}, or a form with a field given twice; or a body that is no form (the API's error body)`,
    content: {
      'text/html': { schema: Type.String() },
      'application/json': { schema: Type.Ref('ApiError') },
    },
  },
  ...apiErrors(413, 415),
  503: HTML_PAGE(
    'A bank system the step needs, or the database, does not answer now: a page that says so, with Retry-After (the page stays valid: send it again later)',
  ),
});
const INVALID = 'The page is no longer valid (expired, used, or a bad CSRF token)';

export function psuRoutes(
  app: Api,
  context: ServiceContext,
  pipelines: Pipelines,
  unavailable?: DatabaseUnavailable,
): void {
  const { route, limits } = pipelines;
  if (context.simulatedEid !== undefined) eidAppRoutes(app, context, pipelines, unavailable);
  app.post(
    '/psu/login',
    route({
      // Password pages: counted per client address.
      onRequest: [limits.psuAddress],
      schema: {
        summary: "Live redirect flow: the PSU's login (HTML form)",
        operationId: 'psuLogin',
        tags: ['PSU pages'],
        consumes: FORM,
        body: LoginForm,
        response: {
          200: HTML_PAGE('Logged in: what the PSU is asked to approve'),
          ...pageErrors(INVALID),
          401: HTML_PAGE('Wrong personal number or password, or locked after too many attempts'),
        },
      },
      errorHandler: psuPageErrors(context.config, unavailable),
      handler: async (request, reply) => {
        const answer = await submitLogin(
          context,
          request.body,
          cookieOf(request, CSRF_COOKIE),
          normalizeIP(request.ip),
        );
        return sendPsuAnswer(context.config, request, reply, answer);
      },
    }),
  );
  app.post(
    '/psu/consent',
    route({
      schema: {
        summary: 'Live redirect flow: the PSU approves or denies (HTML form)',
        operationId: 'psuConsent',
        tags: ['PSU pages'],
        consumes: FORM,
        body: ConsentForm,
        response: {
          302: REDIRECT("Back to the TPP's redirect URI: code and state, or error=access_denied"),
          ...pageErrors(INVALID),
        },
      },
      errorHandler: psuPageErrors(context.config, unavailable),
      handler: async (request, reply) => {
        const answer = await submitConsent(
          context,
          request.body,
          cookieOf(request, CSRF_COOKIE),
          auditActorOf(request),
        );
        return sendPsuAnswer(context.config, request, reply, answer);
      },
    }),
  );
}

/** The simulator's pretend e-ID app: only where the built-in simulator is the e-ID provider. */
function eidAppRoutes(
  app: Api,
  context: ServiceContext,
  { route, limits }: Pipelines,
  unavailable?: DatabaseUnavailable,
): void {
  app.get(
    '/psu/eid',
    route({
      schema: {
        summary: "The e-ID simulator's app: open an order (HTML)",
        description:
          'Where the built-in e-ID simulator is the e-ID provider: the PSU enters the personal number, auto-start token or QR code of a decoupled authorization. Sets the psu_csrf cookie unless the browser has one.',
        operationId: 'eidSimulatorStart',
        tags: ['PSU pages'],
        response: { 200: HTML_PAGE('The form') },
      },
      handler: async (request, reply) =>
        sendPsuAnswer(context.config, request, reply, eidStart(context, cookieOf(request, CSRF_COOKIE))),
    }),
  );
  app.post(
    '/psu/eid/open',
    route({
      schema: {
        summary: "The e-ID simulator's app: open an order (HTML form)",
        operationId: 'eidSimulatorOpen',
        tags: ['PSU pages'],
        consumes: FORM,
        body: Type.Object({
          csrf: FORM_FIELDS.csrf,
          input: field('Personal number, auto-start token or QR code'),
        }),
        response: {
          200: HTML_PAGE('Asks for personal number and password; shows nothing of the order'),
          ...pageErrors(INVALID),
          404: HTML_PAGE('No open order matches'),
        },
      },
      errorHandler: psuPageErrors(context.config, unavailable),
      handler: async (request, reply) =>
        sendPsuAnswer(
          context.config,
          request,
          reply,
          await eidOpen(context, request.body, cookieOf(request, CSRF_COOKIE), normalizeIP(request.ip)),
        ),
    }),
  );
  app.post(
    '/psu/eid/identify',
    route({
      // Password pages: counted per client address.
      onRequest: [limits.psuAddress],
      schema: {
        summary: "The e-ID simulator's app: identify, then see what the order signs (HTML form)",
        description:
          'Only the PSU the order is for, identified by personal number and password, sees what it signs and may sign or cancel it.',
        operationId: 'eidSimulatorIdentify',
        tags: ['PSU pages'],
        consumes: FORM,
        body: Type.Object({
          request: field('The order'),
          csrf: FORM_FIELDS.csrf,
          psu_id: field('The personal number of the PSU who signs'),
          password: field("The PSU's password"),
        }),
        response: {
          200: HTML_PAGE('What the order signs: Sign or Cancel'),
          ...pageErrors('The order cannot be signed now, or the page is no longer valid'),
          401: HTML_PAGE('Wrong personal number or password, or locked after too many attempts'),
          403: HTML_PAGE('The order is for another PSU'),
        },
      },
      errorHandler: psuPageErrors(context.config, unavailable),
      handler: async (request, reply) =>
        sendPsuAnswer(
          context.config,
          request,
          reply,
          await eidIdentify(context, request.body, cookieOf(request, CSRF_COOKIE), normalizeIP(request.ip)),
        ),
    }),
  );
  app.post(
    '/psu/eid/sign',
    route({
      schema: {
        summary: "The e-ID simulator's app: approve or decline an order (HTML form)",
        description: 'With the ticket that the identification of the PSU the order is for handed out.',
        operationId: 'eidSimulatorSign',
        tags: ['PSU pages'],
        consumes: FORM,
        body: Type.Object({
          request: field('The ticket of the identification'),
          csrf: FORM_FIELDS.csrf,
          decision: field('approve or decline'),
        }),
        response: {
          200: HTML_PAGE('Signed, or cancelled'),
          ...pageErrors('The order cannot be signed now, or the page is no longer valid'),
        },
      },
      errorHandler: psuPageErrors(context.config, unavailable),
      handler: async (request, reply) =>
        sendPsuAnswer(
          context.config,
          request,
          reply,
          await eidSign(context, request.body, cookieOf(request, CSRF_COOKIE), normalizeIP(request.ip)),
        ),
    }),
  );
}
