// application/x-www-form-urlencoded bodies, only on the routes whose schema lists the form in
// `consumes` (the token endpoint, the PSU pages): every other route takes JSON and answers a form
// 415 like any other media type. Parameters given more than once are refused, as RFC 6749 section
// 3.2 requires.
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { OAuthError } from '../domain/errors.ts';
import { isShowableName } from './tolerant-body.ts';

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** Whether the route takes form bodies: its schema says so in `consumes`. */
export function takesForms(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema as { consumes?: readonly string[] } | undefined;
  return schema?.consumes?.includes(FORM_MEDIA_TYPE) === true;
}

export function registerFormBody(app: FastifyInstance): void {
  app.addContentTypeParser(FORM_MEDIA_TYPE, { parseAs: 'string' }, (request, body, done) => {
    if (!takesForms(request)) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(FORM_MEDIA_TYPE), undefined);
      return;
    }
    const parameters: Record<string, string> = Object.create(null);
    for (const [name, value] of new URLSearchParams(body as string)) {
      if (Object.hasOwn(parameters, name)) {
        // The name is the caller's: named only when it reads as a parameter name.
        const which = isShowableName(name) ? name : 'a parameter';
        done(new OAuthError('invalid_request', `${which} must be given once`), undefined);
        return;
      }
      parameters[name] = value;
    }
    done(null, parameters);
  });
}
