// Sends what the PSU flow answers: a page (no-store, framing and referrers off, a strict CSP) or a
// redirect back to the TPP; live over HTTPS, with Strict-Transport-Security. Set here, in the one place
// every PSU answer passes, by hand: the project has no security-headers library (@fastify/helmet would
// do it, with the CSP above, if one is ever adopted).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { SYSTEM_TITLES, SystemUnavailable } from '../../domain/bank-systems.ts';
import { RETRY_AFTER_SECONDS } from '../../http/errors.ts';
import { RepeatedFormParameter } from '../../http/form-body.ts';
import type { PsuAnswer } from '../../services/authorization/psu-answer.ts';
import { policyFor } from '../../services/shared/policy.ts';
import { renderPage } from './pages.ts';

export const CSRF_COOKIE = 'psu_csrf';

/** Whether an error says the database cannot answer now (store/database/unavailable.ts's isDatabaseUnavailable). */
export type DatabaseUnavailable = (error: unknown) => boolean;

export function sendPsuAnswer(
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  answer: PsuAnswer,
) {
  noStore(config, request, reply);
  if (answer.kind === 'redirect') return reply.redirect(answer.location, 302);
  if (answer.setCsrfCookie !== undefined) setCsrfCookie(config, request, reply, answer.setCsrfCookie);
  return sendHtml(reply, answer.status, renderPage(answer.page, answer.form, config.basePath));
}

/** What every PSU answer carries, redirects included: never cached; live over HTTPS, HSTS. */
export function noStore(config: Config, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
  // RFC 6797 7.2: never over plain HTTP (a browser ignores it there anyway).
  const hsts = policyFor(config.mode).strictTransportSecurity;
  if (hsts !== undefined && request.protocol === 'https') reply.header('Strict-Transport-Security', hsts);
}

export function setCsrfCookie(config: Config, request: FastifyRequest, reply: FastifyReply, csrf: string) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'Set-Cookie',
    `${CSRF_COOKIE}=${csrf}; Path=${config.basePath || '/'}; HttpOnly; SameSite=Strict; Max-Age=900${secure}`,
  );
}

/** A PSU page (after noStore): a strict CSP, no framing, no referrer. */
export function sendHtml(reply: FastifyReply, status: number, page: string) {
  return reply
    .code(status)
    .header(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    )
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(page);
}

/**
 * The errors of the PSU's pages, as pages, in this one place (a route's `errorHandler`): a bank system
 * the step needs cannot answer now (503 with Retry-After; the steps leave the page usable, so that the
 * PSU sends it again once the system is back), or a form with a parameter given twice (400). Any other
 * error goes on to the app's error handler (http/errors.ts): the API's body, as for a body that is no
 * form at all. The database away (`unavailable` tells its errors, as for http/errors.ts) is a 503 page too.
 */
export function psuPageErrors(config: Config, unavailable: DatabaseUnavailable = () => false) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof SystemUnavailable) return sendUnavailablePage(config, request, reply, error);
    if (unavailable(error)) {
      const away = new SystemUnavailable('database', 'the database cannot answer', { cause: error });
      return sendUnavailablePage(config, request, reply, away);
    }
    if (error instanceof RepeatedFormParameter) {
      return sendPsuAnswer(config, request, reply, {
        kind: 'page',
        status: 400,
        page: {
          view: 'message',
          title: 'This form cannot be read',
          text: 'It was sent with a field given twice. Go back to the app you came from and start again.',
        },
      });
    }
    throw error;
  };
}

/** A system the PSU's step needs cannot answer now: a page that says so (503, Retry-After), not the API's JSON. */
function sendUnavailablePage(
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  error: SystemUnavailable,
) {
  request.log.error({ err: error, system: error.system }, `${error.system} cannot answer`);
  reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
  return sendPsuAnswer(config, request, reply, {
    kind: 'page',
    status: 503,
    page: {
      view: 'message',
      title: 'Temporarily unavailable',
      text: `${SYSTEM_TITLES[error.system]} cannot answer right now. Please try again in a few minutes.`,
    },
  });
}

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
