// Fields a request body carries that the contract does not know (clients of the real service send,
// for example, debtorAccount.text on every payment) are set aside before validation, not refused:
// the fields we know are still checked strictly. Each ignored field is named in the answer's
// X-Ignored-Fields header and in the log, so a TPP still learns about a typo without its client
// breaking.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const IGNORED_FIELDS_HEADER = 'X-Ignored-Fields';

/** At most this many field names in the header (the log has all). */
const MAX_NAMED = 20;
/** A member name shown as it is; any other is counted, never echoed. */
const SHOWABLE = /^[A-Za-z0-9_$-]{1,64}$/;

/** Whether a name the caller chose reads as a field name, and so may be named in an answer. */
export function isShowableName(name: string): boolean {
  return SHOWABLE.test(name);
}

interface SchemaNode {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly additionalProperties?: boolean | SchemaNode;
  readonly items?: SchemaNode;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Removes from `value` every member that a closed object of `schema` does not declare, at any depth
 * (objects and arrays); answers their paths (`debtorAccount.text`, `payments[1].note`). A member whose
 * name cannot be shown is reported as `null`. Every request with a body passes here: a path is built
 * only for a member set aside (issue 18: building one for every member was, with the text guard's
 * walk, about five percent of an initiation's allocations).
 */
export function setAsideUnknown(schema: SchemaNode, value: unknown): (string | null)[] {
  const found: (string | null)[] = [];
  collectUnknown(schema, value, [], found);
  return found;
}

function collectUnknown(
  schema: SchemaNode,
  value: unknown,
  parents: (string | number)[],
  found: (string | null)[],
): void {
  if (schema.items !== undefined && Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      parents.push(index);
      collectUnknown(schema.items, value[index], parents, found);
      parents.pop();
    }
    return;
  }
  const properties = schema.properties;
  if (properties === undefined || !isPlainObject(value)) return;
  for (const name of Object.keys(value)) {
    // Own members only: a body member named like one of Object's own (toString) is not declared.
    if (Object.hasOwn(properties, name)) {
      parents.push(name);
      collectUnknown(properties[name]!, value[name], parents, found);
      parents.pop();
    } else if (schema.additionalProperties === false) {
      delete value[name];
      // Known members' names and indices are ours; only the unknown member's own name is the caller's.
      found.push(SHOWABLE.test(name) ? pathOf(parents, name) : null);
    }
  }
}

/** `debtorAccount.text`, `payments[1].note`: the members and indices above a name, then the name. */
function pathOf(parents: readonly (string | number)[], name: string): string {
  let path = '';
  for (const part of parents)
    path += typeof part === 'number' ? `[${part}]` : path === '' ? part : `.${part}`;
  return path === '' ? name : `${path}.${name}`;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Body members set aside as unknown (tolerant-body.ts); null for a name that cannot be shown. */
    ignoredFields: (string | null)[] | undefined;
  }
}

/** The header value: the names that can be shown, and how many more there were. */
function ignoredFieldsHeader(ignored: readonly (string | null)[]): string {
  const named = ignored.filter((name): name is string => name !== null);
  const shown = named.slice(0, MAX_NAMED);
  const more = ignored.length - shown.length;
  return [...shown, ...(more > 0 ? [`+${more} more`] : [])].join(', ');
}

export function registerTolerantBodies(app: FastifyInstance): void {
  app.decorateRequest('ignoredFields', undefined);
  // Callback-style: every request passes it (an async hook costs a promise and a microtask turn).
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    setAsideUnknownOf(request);
    done();
  });
}

function setAsideUnknownOf(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.body as SchemaNode | undefined;
  if (schema === undefined || request.body === undefined) return;
  const ignored = setAsideUnknown(schema, request.body);
  if (ignored.length === 0) return;
  request.ignoredFields = ignored;
  request.log.info(
    { ignoredFields: ignored.map((name) => name ?? '(a name that cannot be shown)') },
    'request fields the contract does not know were ignored',
  );
}

/** Names the ignored fields on the answer (called from the onSend hook, errors included). */
export function setIgnoredFieldsHeader(request: FastifyRequest, reply: FastifyReply): void {
  if (request.ignoredFields !== undefined) {
    reply.header(IGNORED_FIELDS_HEADER, ignoredFieldsHeader(request.ignoredFields));
  }
}
