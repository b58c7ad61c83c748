import { buildOpenApiDocument } from '@sched/api/openapi/document';
import { renderDocsPage } from '@sched/api/openapi/docs-page';
import { named } from '@sched/api/openapi/named';
import { type AnyRoute, defineRoute } from '@sched/api/routing/route';
import { routes } from '@sched/api/routes/index';
import test from 'ava';
import { z } from 'zod';
import { assertMatchesDocument, openApiChecker } from '../support/openapi-check.ts';

/**
 * The OpenAPI document types every request and response with named schemas and examples. No
 * operation shows an untyped `data`; every request body and every response refers to a schema of
 * components/schemas; every operation has examples, and each example (in the operations and in the
 * named schemas) is accepted by its own schema.
 */

type Json = Record<string, unknown>;
const config = { appUrl: 'http://app.test', baseUrl: 'http://api.test' };
const document = buildOpenApiDocument(routes, config) as unknown as {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
};
const schemas = document.components.schemas;
const REF = '#/components/schemas/';

const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    name: `${method.toUpperCase()} ${path}`,
    operation,
  })),
);

const refName = (schema: unknown): string | undefined => {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === 'string' && ref.startsWith(REF) ? ref.slice(REF.length) : undefined;
};

/** A schema that says nothing: `{}` or one with annotations only. */
const untyped = (schema: Json): boolean =>
  !['type', '$ref', 'anyOf', 'oneOf', 'allOf', 'const', 'enum', 'not'].some((key) => key in schema);

const successOf = (operation: Json) =>
  Object.entries(operation['responses'] as Record<string, Json>).filter(([status]) => status.startsWith('2'));

const mediaOf = (holder: Json | undefined) =>
  (holder?.['content'] as Record<string, Json> | undefined)?.['application/json'];

test('every operation answers success in a named envelope whose data is a named schema or a list of one', (t) => {
  const problems: string[] = [];
  for (const { name, operation } of operations) {
    for (const [status, response] of successOf(operation)) {
      const media = mediaOf(response);
      if (status === '204') {
        if (media) problems.push(`${name}: 204 with a body`);
        continue;
      }
      const envelope = refName(media?.['schema']);
      if (!envelope || !schemas[envelope]) {
        problems.push(`${name}: ${status} is not a named schema`);
        continue;
      }
      const properties = schemas[envelope]['properties'] as Record<string, Json>;
      const data = properties['data']!;
      const item = (data['items'] as Json | undefined) ?? {};
      if (!refName(data) && !(data['type'] === 'array' && refName(item))) {
        problems.push(`${name}: data of ${envelope} is not a named schema or a list of one`);
      }
      if (refName(data) && untyped(schemas[refName(data)!]!)) problems.push(`${name}: data is untyped`);
      if (!media?.['example']) problems.push(`${name}: no response example`);
    }
  }
  t.deepEqual(problems, []);
  t.true(operations.length >= 85);
});

test('every request body is a named schema with an example', (t) => {
  const problems: string[] = [];
  for (const { name, operation } of operations) {
    const body = operation['requestBody'] as Json | undefined;
    if (!body) continue;
    const media = mediaOf(body);
    if (!refName(media?.['schema'])) problems.push(`${name}: request body is not a named schema`);
    if (media?.['example'] === undefined) problems.push(`${name}: no request body example`);
  }
  t.deepEqual(problems, []);
});

test('every error status refers to the named Error envelope', (t) => {
  const problems: string[] = [];
  for (const { name, operation } of operations) {
    for (const [status, response] of Object.entries(operation['responses'] as Record<string, Json>)) {
      if (status.startsWith('2')) continue;
      if (!String(response['$ref']).startsWith('#/components/responses/E'))
        problems.push(`${name}: ${status}`);
    }
  }
  t.deepEqual(problems, []);
  t.truthy(schemas['Error']);
});

test('every example is accepted by its schema: operations and named schemas', (t) => {
  const checker = openApiChecker();
  const problems: string[] = [];
  let checked = 0;
  for (const { name, operation } of operations) {
    const media = [
      ['request', mediaOf(operation['requestBody'] as Json | undefined)],
      ...successOf(operation).map(([status, response]) => [status, mediaOf(response)] as const),
    ] as const;
    for (const [what, m] of media) {
      if (!m || m['example'] === undefined) continue;
      checked++;
      for (const error of checker.errorsOf(m['schema'] as Json, m['example']))
        problems.push(`${name} ${what}: ${error}`);
    }
  }
  for (const [schemaName, schema] of Object.entries(schemas)) {
    for (const example of (schema['examples'] as unknown[] | undefined) ?? []) {
      checked++;
      for (const error of checker.errorsOf({ $ref: `${REF}${schemaName}` }, example)) {
        problems.push(`${schemaName}: ${error}`);
      }
    }
  }
  t.deepEqual(problems, []);
  t.true(checked > 100);
});

test('an example its schema refuses is found', (t) => {
  const errors = openApiChecker().errorsOf({ $ref: `${REF}Booking` }, { id: 'one' });
  t.true(errors.length > 0);
});

const probe = (response: AnyRoute['response'], body?: z.ZodType): AnyRoute =>
  defineRoute({
    method: 'POST',
    path: '/probe',
    summary: 'probe',
    tags: ['Probe'],
    auth: 'public',
    ...(body ? { body } : {}),
    response,
    handler: () => ({}),
  }) as AnyRoute;

test('the document refuses an untyped or unnamed response, an unnamed request body and two shapes under one name', (t) => {
  const build = (route: AnyRoute) => () => buildOpenApiDocument([route], config);
  t.throws(build(probe({ status: 200, description: 'no schema' })), { message: /without a response schema/ });
  t.throws(build(probe({ status: 200, description: 'unnamed', schema: z.object({ a: z.string() }) })), {
    message: /needs a name/,
  });
  const named1 = named('ProbeThing', z.object({ a: z.string() }), { a: 'x' });
  t.throws(build(probe({ status: 200, description: 'ok', schema: named1 }, z.object({ a: z.string() }))), {
    message: /request body of POST \/probe needs a name/,
  });
  const other = named('ProbeThing', z.object({ b: z.int() }), { b: 1 });
  t.throws(
    () =>
      buildOpenApiDocument(
        [
          probe({ status: 200, description: 'ok', schema: named1 }),
          probe({ status: 200, description: 'ok', schema: other }),
        ],
        config,
      ),
    { message: /two different schemas are named ProbeThing/ },
  );
  t.notThrows(build(probe({ status: 204, description: 'nothing' })));
});

test('the test kit refuses an answer whose status or body the document does not list', (t) => {
  const url = 'http://127.0.0.1:1/v2/teams/12';
  const team = { id: 12, name: 'Sales', slug: 'sales', organizationId: null };
  t.notThrows(() => assertMatchesDocument('GET', url, 200, { status: 'success', data: team }));
  t.throws(() => assertMatchesDocument('GET', url, 200, { status: 'success', data: { ...team, extra: 1 } }), {
    message: /schema refuses/,
  });
  t.throws(() => assertMatchesDocument('GET', url, 200, { status: 'success', data: { id: 12 } }), {
    message: /schema refuses/,
  });
  t.throws(() => assertMatchesDocument('GET', url, 409, { status: 'error' }), { message: /does not list/ });
  t.throws(() => assertMatchesDocument('GET', url, 404, { status: 'error' }), { message: /schema refuses/ });
  // Paths the document does not name (the auth service, probes) are not checked.
  t.notThrows(() => assertMatchesDocument('GET', 'http://127.0.0.1:1/v2/auth/whatever', 500, 'x'));
});

test('the docs page links each body and answer to its named schema and lists every named schema', (t) => {
  const html = renderDocsPage(routes, document);
  t.regex(html, /Request body \(JSON\), example: <a href="#schema-CreateBookingRequest">/);
  t.regex(html, /<a href="#schema-BookingResponse">/);
  for (const name of Object.keys(schemas)) t.true(html.includes(`id="schema-${name}"`), name);
});

test('operations that name no scope say what every OAuth token gets: not available, legacy ones included', (t) => {
  const info = (document as unknown as { info: { description: string } }).info.description;
  t.regex(info, /name no scope are not available to third-party OAuth tokens, legacy ones included/);
  t.notRegex(info, /non-legacy clients/);
  const scopeLine = (name: string) =>
    /\*\*OAuth scope:\*\* ([^\n]*)/.exec(
      String(operations.find((operation) => operation.name === name)?.operation['description']),
    )?.[1];
  for (const name of [
    'GET /organizations/{orgId}/roles',
    'GET /me/invitations',
    'POST /me/verification-email',
    'GET /api-keys',
  ]) {
    t.is(scopeLine(name), 'none: not available to third-party OAuth tokens (legacy ones included)', name);
  }
});

test('every example API key has the key format: svc_ and 32 random bytes in base64url', (t) => {
  const apiKeys: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'apiKey' && typeof inner === 'string') apiKeys.push(inner);
        else walk(inner);
      }
    }
  };
  walk(document);
  t.true(apiKeys.length >= 2, 'the key-issuing answers have examples');
  for (const apiKey of apiKeys) t.regex(apiKey, /^svc_[A-Za-z0-9_-]{43}$/);
});
