// application/x-www-form-urlencoded bodies (the token endpoint). Parameters given more than once are
// refused, as RFC 6749 section 3.2 requires.
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../domain/errors.ts';

export function registerFormBody(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const parameters: Record<string, string> = Object.create(null);
      for (const [name, value] of new URLSearchParams(body as string)) {
        if (Object.hasOwn(parameters, name)) {
          done(new OAuthError('invalid_request', `${name} must be given once`), undefined);
          return;
        }
        parameters[name] = value;
      }
      done(null, parameters);
    },
  );
}
