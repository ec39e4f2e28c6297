// The PSU's login and consent forms of the live redirect flow.
import type { FastifyInstance } from 'fastify';
import { eidOpen, eidSign, eidStart } from '../../services/authorization/eid-app.ts';
import { type PsuForm, submitConsent, submitLogin } from '../../services/authorization/psu-login.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { CSRF_COOKIE, cookieOf, sendPsuAnswer } from './reply.ts';

export function psuRoutes(app: FastifyInstance, context: ServiceContext): void {
  if (context.eid.simulatedApp !== undefined) eidAppRoutes(app, context);
  app.post<{ Body: PsuForm }>('/psu/login', async (request, reply) => {
    const answer = await submitLogin(context, request.body ?? {}, cookieOf(request, CSRF_COOKIE));
    return sendPsuAnswer(context.config, request, reply, answer);
  });
  app.post<{ Body: PsuForm }>('/psu/consent', async (request, reply) => {
    const answer = await submitConsent(context, request.body ?? {}, cookieOf(request, CSRF_COOKIE));
    return sendPsuAnswer(context.config, request, reply, answer);
  });
}

/** The simulator's pretend e-ID app: only where the built-in simulator is the e-ID provider. */
function eidAppRoutes(app: FastifyInstance, context: ServiceContext): void {
  app.get('/psu/eid', (request, reply) => sendPsuAnswer(context.config, request, reply, eidStart()));
  app.post<{ Body: { input?: string } }>('/psu/eid/open', async (request, reply) =>
    sendPsuAnswer(context.config, request, reply, await eidOpen(context, request.body?.input)),
  );
  app.post<{ Body: { order?: string; decision?: string } }>('/psu/eid/sign', async (request, reply) =>
    sendPsuAnswer(
      context.config,
      request,
      reply,
      await eidSign(context, request.body?.order, request.body?.decision),
    ),
  );
}
