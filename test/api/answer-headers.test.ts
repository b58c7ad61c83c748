import { request } from 'node:http';
import { named } from '@sched/api/openapi/named';
import { presentedOnce, successText } from '@sched/api/presenters/shared-answers';
import { type AnyRoute, defineRoute } from '@sched/api/routing/route';
import test from 'ava';
import { z } from 'zod';
import { apiRuntime, type ServedApi, serveApiApp } from '../support/api-app.ts';
import { setUpTestSystem } from '../support/system.ts';

/**
 * The API writes its request id and security headers with the answer (kit answer-headers.ts): a
 * JSON answer at once, every other answer (errors, 204, the router's 405 / OPTIONS / 501, a CORS
 * preflight, the docs page) just before Koa writes it. Every answer must carry each of them
 * exactly once, keep what a step set on purpose, and send the same bytes as before.
 */

const thing = named('AnswerProbeThing', z.object({ id: z.int(), tags: z.array(z.string()) }), {
  id: 1,
  tags: [],
});
const page = named('AnswerProbePage', z.object({ next: z.string().nullable() }), { next: null });
const probe = (path: string, extra: Partial<AnyRoute>): AnyRoute =>
  defineRoute({
    method: 'GET',
    path,
    summary: `probe ${path}`,
    tags: ['Probe'],
    auth: 'public',
    response: { status: 200, description: 'a thing', schema: thing },
    handler: () => ({ data: { id: 1, tags: ['a'] } }),
    ...extra,
  } as AnyRoute) as AnyRoute;

const row = { id: 7, tags: ['x', 'y'] };
const presented = presentedOnce((input: typeof row) => ({ id: input.id, tags: input.tags }));
const routes: AnyRoute[] = [
  probe('/answer/plain', {}),
  probe('/answer/shared', { handler: () => ({ data: presented(row) }) }),
  probe('/answer/page', {
    response: { status: 200, description: 'things', schema: z.array(thing), pagination: page },
    handler: () => ({ data: [{ id: 2, tags: [] }], pagination: { next: 'c2' } }),
  }),
  probe('/answer/created', {
    method: 'POST',
    response: { status: 201, description: 'made', schema: thing },
    handler: () => ({ status: 201, data: { id: 3, tags: [] }, headers: { Location: '/v2/answer/plain' } }),
  }),
  probe('/answer/none', {
    method: 'DELETE',
    response: { status: 204, description: 'gone' },
    handler: () => ({ status: 204 }),
  }),
  probe('/answer/deprecated', { deprecated: true }),
  probe('/answer/private', { auth: 'user' }),
];

const SECURITY = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
};

interface RawAnswer {
  status: number;
  /** Header names in lower case -> every value sent under that name. */
  headers: Map<string, string[]>;
  body: string;
}

function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const all = new Map<string, string[]>();
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        const name = res.rawHeaders[i]!.toLowerCase();
        all.set(name, [...(all.get(name) ?? []), res.rawHeaders[i + 1]!]);
      }
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: all, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Each of the service's headers once, with its value (the CSP unless the answer sets its own). */
function carriesServiceHeaders(
  t: {
    deepEqual: (a: unknown, b: unknown, m?: string) => void;
    is: (a: unknown, b: unknown, m?: string) => void;
  },
  answer: RawAnswer,
  label: string,
  options: { csp?: string; requestId?: string; hsts?: boolean } = {},
) {
  const ids = answer.headers.get('x-request-id') ?? [];
  t.is(ids.length, 1, `${label}: one X-Request-Id`);
  if (options.requestId) t.is(ids[0], options.requestId, `${label}: the caller's request id`);
  for (const [name, value] of Object.entries(SECURITY)) {
    const expected = name === 'content-security-policy' && options.csp ? options.csp : value;
    t.deepEqual(answer.headers.get(name), [expected], `${label}: ${name}`);
  }
  t.deepEqual(
    answer.headers.get('strict-transport-security'),
    options.hsts ? ['max-age=31536000; includeSubDomains'] : undefined,
    `${label}: HSTS`,
  );
}

const system = setUpTestSystem(test);
let api: ServedApi;
let httpsApi: ServedApi;
test.before(async () => {
  api = await serveApiApp(apiRuntime(system.config, system.stores), routes);
  httpsApi = await serveApiApp(
    apiRuntime({ ...system.config, env: 'production', baseUrl: 'https://api.example.test' }, system.stores),
    routes,
  );
});
test.after.always(async () => {
  await api?.close();
  await httpsApi?.close();
});

test('JSON answers written at once carry the request id and each security header once', async (t) => {
  for (const path of ['/v2/answer/plain', '/v2/answer/shared', '/v2/answer/page']) {
    const answer = await send(api.url, 'GET', path);
    t.is(answer.status, 200, path);
    carriesServiceHeaders(t, answer, path);
    t.deepEqual(answer.headers.get('content-type'), ['application/json; charset=utf-8'], path);
    t.deepEqual(answer.headers.get('content-length'), [String(Buffer.byteLength(answer.body))], path);
  }
  const kept = await send(api.url, 'GET', '/v2/answer/plain', { 'X-Request-Id': 'gateway-7' });
  carriesServiceHeaders(t, kept, 'incoming id', { requestId: 'gateway-7' });
  const secure = await send(httpsApi.url, 'GET', '/v2/answer/plain');
  carriesServiceHeaders(t, secure, 'https base URL', { hsts: true });
});

test('headers a step or the handler set are kept beside them: route headers, CORS, deprecation', async (t) => {
  const created = await send(api.url, 'POST', '/v2/answer/created');
  t.is(created.status, 201);
  carriesServiceHeaders(t, created, 'created');
  t.deepEqual(created.headers.get('location'), ['/v2/answer/plain']);
  t.deepEqual(JSON.parse(created.body), { status: 'success', data: { id: 3, tags: [] } });

  const cors = await send(api.url, 'GET', '/v2/answer/plain', { Origin: 'https://app.example.test' });
  carriesServiceHeaders(t, cors, 'cross-origin');
  t.deepEqual(cors.headers.get('access-control-allow-origin'), ['*']);

  const deprecated = await send(api.url, 'GET', '/v2/answer/deprecated');
  t.is(deprecated.status, 200);
  carriesServiceHeaders(t, deprecated, 'deprecated');
  t.truthy(deprecated.headers.get('deprecation'));
});

test('HEAD gets the headers and length of GET without a body', async (t) => {
  const get = await send(api.url, 'GET', '/v2/answer/plain');
  const head = await send(api.url, 'HEAD', '/v2/answer/plain');
  t.is(head.status, 200);
  carriesServiceHeaders(t, head, 'HEAD');
  t.is(head.body, '');
  t.deepEqual(head.headers.get('content-length'), get.headers.get('content-length'));
});

test('answers Koa writes carry them too: errors, /mcp, 204, 405, OPTIONS, 501, a preflight, the docs page', async (t) => {
  const cases: Array<[string, string, Record<string, string>, number]> = [
    ['GET', '/v2/no-such-route', {}, 404],
    ['GET', '/v2/answer/private', {}, 401],
    ['POST', '/mcp', {}, 401],
    ['DELETE', '/v2/answer/none', {}, 204],
    ['PUT', '/v2/answer/plain', {}, 405],
    ['OPTIONS', '/v2/answer/plain', {}, 200],
    ['PROPFIND', '/v2/answer/plain', {}, 501],
    [
      'OPTIONS',
      '/v2/answer/plain',
      { Origin: 'https://app.example.test', 'Access-Control-Request-Method': 'GET' },
      204,
    ],
  ];
  for (const [method, path, headers, status] of cases) {
    const answer = await send(api.url, method, path, headers);
    t.is(answer.status, status, `${method} ${path}`);
    carriesServiceHeaders(t, answer, `${method} ${path} (${status})`);
  }
  const secure = await send(httpsApi.url, 'GET', '/v2/no-such-route');
  carriesServiceHeaders(t, secure, 'https 404', { hsts: true });
  const docs = await send(api.url, 'GET', '/v2/docs');
  t.is(docs.status, 200);
  carriesServiceHeaders(t, docs, 'docs page', {
    csp: "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  });
});

test('a shared answer is the same bytes as the envelope JSON.stringify gives, and cannot change', async (t) => {
  const first = await send(api.url, 'GET', '/v2/answer/shared');
  const second = await send(api.url, 'GET', '/v2/answer/shared');
  t.is(first.body, JSON.stringify({ status: 'success', data: { id: 7, tags: ['x', 'y'] } }));
  t.is(second.body, first.body);
  const value = presented(row);
  t.is(presented(row), value, 'presented once per row object');
  t.throws(
    () => {
      (value.tags as string[]).push('z');
    },
    { instanceOf: TypeError },
  );
  t.is(successText(value), first.body);
  // A new row object (a refreshed cache entry) is presented and serialized afresh.
  t.is(
    successText(presented({ id: 7, tags: ['x', 'y', 'z'] })),
    '{"status":"success","data":{"id":7,"tags":["x","y","z"]}}',
  );
  const paged = await send(api.url, 'GET', '/v2/answer/page');
  t.is(
    paged.body,
    JSON.stringify({ status: 'success', data: [{ id: 2, tags: [] }], pagination: { next: 'c2' } }),
  );
  for (const data of [undefined, null, 'text', 3, [1, { a: 2 }]])
    t.is(successText(data), JSON.stringify({ status: 'success', data: data ?? null }), String(data));
});
