// The non-JSON answers of the PSU-facing routes, as the OpenAPI document describes them.
import { Type } from '@sinclair/typebox';

/** A redirect: where to is in Location. */
export const REDIRECT = (description: string) => ({
  description,
  type: 'null',
  headers: { Location: { type: 'string', description: 'The URL to go to' } },
});

/** An HTML page for the PSU. */
export const HTML_PAGE = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String() } },
});
