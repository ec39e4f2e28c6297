// application/x-www-form-urlencoded bodies, only on the routes whose schema lists the form in
// `consumes` (the token endpoint, the PSU pages): every other route takes JSON and answers a form
// 415 like any other media type. Parameters given more than once are refused, as RFC 6749 section
// 3.2 requires.
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { ApiError, OAuthError } from '../domain/errors.ts';
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
        done(onceOnly(request, `${which} must be given once`), undefined);
        return;
      }
      parameters[name] = value;
    }
    done(null, parameters);
  });
}

/**
 * A form parameter given more than once: the API's FORMAT_ERROR, serialised as any ApiError; the PSU
 * pages, which a browser shows, answer it as a page (api/psu/reply.ts).
 */
export class RepeatedFormParameter extends ApiError {
  constructor(text: string) {
    super({ code: 'FORMAT_ERROR', text });
    this.name = 'RepeatedFormParameter';
  }
}

/**
 * In the shape of the route: the token endpoint's RFC 6749 error; the PSU pages' API error body (an
 * OAuth body there failed their answer's serialiser and made a 500, issue 37). The route's
 * `errorShape` read here as errors.ts's isOAuthRoute does (which imports this file).
 */
function onceOnly(request: FastifyRequest, text: string): Error {
  return request.routeOptions.config?.errorShape === 'oauth'
    ? new OAuthError('invalid_request', text)
    : new RepeatedFormParameter(text);
}
