// A Postman request from an operation and a step: the documented headers filled from the collection's
// variables, the URL with its path parameters and query, the body (a form, JSON, or the operation's
// example), the status test and the step's scripts.
import type { Json, Located, Operation, Parameter } from './document.ts';
import type { Step } from './steps.ts';

/** The value a documented header gets unless a step says otherwise; undefined: not sent. */
function headerValue(parameter: Parameter): string | undefined {
  switch (parameter.name) {
    case 'X-Gateway-Client-Id':
      return '{{clientId}}';
    case 'TPP-Request-ID':
    case 'TPP-Transaction-ID':
      return '{{$guid}}';
    case 'PSU-IP-Address':
      return '{{psuIpAddress}}';
    case 'Country':
      return 'SE';
    default:
      return parameter.required === true ? '' : undefined;
  }
}

export function request(step: Step, operations: Map<string, Located>): Json {
  const located = operations.get(step.operationId);
  if (located === undefined) throw new Error(`the document has no operation ${step.operationId}`);
  const { method, path, operation } = located;
  const scripts = [
    `pm.test('answers ${step.status}', () => pm.response.to.have.status(${step.status}));`,
    ...(step.after ?? []),
  ];
  return {
    name: step.name,
    event: [
      ...(step.before === undefined
        ? []
        : [{ listen: 'prerequest', script: { type: 'text/javascript', exec: step.before } }]),
      { listen: 'test', script: { type: 'text/javascript', exec: scripts } },
    ],
    // The authorize redirect is the answer itself: not followed.
    ...(step.status >= 300 && step.status < 400
      ? { protocolProfileBehavior: { followRedirects: false } }
      : {}),
    request: {
      method,
      description: operation.summary ?? '',
      ...(step.auth === undefined
        ? {}
        : {
            auth: { type: 'bearer', bearer: [{ key: 'token', value: `{{${step.auth}}}`, type: 'string' }] },
          }),
      header: headers(operation, step.headers),
      url: url(path, step.path ?? {}, step.query ?? {}),
      ...body(operation, step),
    },
  };
}

function headers(operation: Operation, given: Record<string, string> = {}): Json[] {
  const documented = (operation.parameters ?? []).filter((parameter) => parameter.in === 'header');
  const list: Json[] = [];
  for (const parameter of documented) {
    const value = given[parameter.name] ?? headerValue(parameter);
    if (value !== undefined) list.push({ key: parameter.name, value });
  }
  return list;
}

function url(path: string, params: Record<string, string>, query: Record<string, string>): Json {
  const filled = path.replace(/\{([^}]+)\}/g, (_match, name: string) => params[name] ?? `{{${name}}}`);
  const search = Object.entries(query);
  const raw = `{{baseUrl}}${filled}${search.length === 0 ? '' : `?${search.map(([key, value]) => `${key}=${value}`).join('&')}`}`;
  return {
    raw,
    host: ['{{baseUrl}}'],
    path: filled.split('/').filter((segment) => segment !== ''),
    ...(search.length === 0 ? {} : { query: search.map(([key, value]) => ({ key, value })) }),
  };
}

function body(operation: Operation, step: Pick<Step, 'body'>): Json {
  const given = step.body;
  if (given === undefined) return {};
  if ('form' in given) {
    return {
      body: {
        mode: 'urlencoded',
        urlencoded: Object.entries(given.form).map(([key, value]) => ({ key, value, type: 'text' })),
      },
    };
  }
  const value = 'json' in given ? given.json : exampleOf(operation, given.example);
  return {
    body: { mode: 'raw', raw: JSON.stringify(value, null, 2), options: { raw: { language: 'json' } } },
  };
}

function exampleOf(operation: Operation, name: string): unknown {
  const example = operation.requestBody?.content['application/json']?.examples?.[name];
  if (example === undefined) throw new Error(`${operation.operationId} has no example ${name}`);
  return example.value;
}
