// The PSU's login and consent forms of the live redirect flow.
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { type PsuForm, submitConsent, submitLogin } from '../../services/psu-authorization.ts';
import { CSRF_COOKIE, cookieOf, sendPsuAnswer } from './reply.ts';

export function psuRoutes(app: FastifyInstance, context: ServiceContext): void {
  app.post<{ Body: PsuForm }>('/psu/login', async (request, reply) => {
    const answer = await submitLogin(context, request.body ?? {}, cookieOf(request, CSRF_COOKIE));
    return sendPsuAnswer(context.config, request, reply, answer);
  });
  app.post<{ Body: PsuForm }>('/psu/consent', async (request, reply) => {
    const answer = await submitConsent(context, request.body ?? {}, cookieOf(request, CSRF_COOKIE));
    return sendPsuAnswer(context.config, request, reply, answer);
  });
}
