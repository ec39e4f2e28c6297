// Content negotiation between a page and JSON, for the routes that answer a browser otherwise.
import type { FastifyRequest } from 'fastify';

/**
 * Whether the caller asks for a page rather than JSON: text/html named with a higher q than
 * application/json (absent: 0). A browser's navigation names text/html and never application/json;
 * an API client names application/json, or nothing, or *\/*, and keeps the JSON body of API-NOTES.
 */
export function wantsPage(request: FastifyRequest): boolean {
  const quality = (type: string) => {
    let best = 0;
    for (const entry of String(request.headers.accept ?? '').split(',')) {
      const [name, ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
      if (name !== type) continue;
      const q = parameters.find((parameter) => parameter.startsWith('q='));
      const value = q === undefined ? 1 : Number(q.slice(2));
      if (Number.isFinite(value)) best = Math.max(best, value);
    }
    return best;
  };
  return quality('text/html') > quality('application/json');
}
