// Fastify's own schema compilers (Ajv for requests, fast-json-stringify for answers), each schema
// compiled when its route is first called instead of all at start: with every operation documented
// (headers, bodies, each status's answer) compiling them all took most of a second before the first
// request. A route's first call pays its own few milliseconds once.
import { AjvCompiler, type RouteDefinition } from '@fastify/ajv-compiler';
import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Validate = ((data: unknown) => unknown) & { errors?: unknown };
/** What Fastify calls the validator factory with and expects back (its types say less than it does). */
type ValidatorFactory = (
  externalSchemas: Parameters<ReturnType<typeof AjvCompiler>>[0],
  options: Parameters<ReturnType<typeof AjvCompiler>>[1],
) => (route: RouteDefinition) => Validate;

/** Validators compiled on first use; header schemas lower-cased as Fastify's own setup does. */
const buildValidator: ValidatorFactory = (externalSchemas, options) => {
  const compile = AjvCompiler()(externalSchemas, options) as unknown as (route: RouteDefinition) => Validate;
  return (route) => {
    let validate: Validate | undefined;
    const lazy: Validate = (data) => {
      validate ??= compile(
        route.httpPart === 'headers' ? { ...route, schema: lowerCased(route.schema) as object } : route,
      );
      const valid = validate(data);
      // Fastify reads the errors from the function it was given.
      lazy.errors = validate.errors;
      return valid;
    };
    return lazy;
  };
};

/** Serializers compiled on first use. */
const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => {
      serialize ??= compile(route);
      return serialize(data);
    };
  };
};

/** HTTP header names are case-insensitive: Node gives them lower-cased, so the schema names them so. */
function lowerCased(schema: unknown): unknown {
  const object = schema as { properties?: Record<string, unknown>; required?: string[] };
  if (typeof object !== 'object' || object === null || object.properties === undefined) return schema;
  return {
    ...object,
    properties: Object.fromEntries(
      Object.entries(object.properties).map(([name, value]) => [name.toLowerCase(), value]),
    ),
    ...(object.required === undefined ? {} : { required: object.required.map((name) => name.toLowerCase()) }),
  };
}

export const lazyCompilers = {
  buildValidator: buildValidator as unknown as ReturnType<typeof AjvCompiler>,
  buildSerializer,
};
