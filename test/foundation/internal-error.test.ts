import { Writable } from 'node:stream';
import { defineRoute } from '@sched/api/routing/route';
import { createLogger } from '@sched/kit/logger';
import test from 'ava';
import { z } from 'zod';
import { apiRuntime, type ServedApi, serveApiApp } from '../support/api-app.ts';
import { startTestSystem, type TestSystem } from '../support/system.ts';

// A 500 never leaks internals. The resource API app as production builds it, with
// routes of this test's own whose handlers fail unexpectedly; the log is captured to see that the
// cause is written there (with the request id) instead of into the response.

const SECRET = 'connection to db-primary.internal:5432 failed for user sched_owner';

const failing = (path: string, fail: () => never) =>
  defineRoute({
    method: 'GET',
    path,
    summary: `fails: ${path}`,
    tags: ['Probe'],
    auth: 'public',
    response: { status: 200, description: 'never: the handler throws', schema: z.null() },
    handler: async () => fail(),
  });

const probeRoutes = [
  failing('/boom/error', () => {
    throw new Error(SECRET);
  }),
  failing('/boom/library', () => {
    // A library error that says it may be shown: a 5xx is still not the client's business.
    throw Object.assign(new Error(SECRET), { status: 502, expose: true, code: 'ECONNRESET' });
  }),
  failing('/boom/type', () => {
    const value: { missing?: { field: string } } = {};
    // A real TypeError from the engine ("Cannot read properties of undefined").
    return (value.missing as { field: string }).field as never;
  }),
  failing('/boom/string', () => {
    throw SECRET;
  }),
];

let system: TestSystem;
let api: ServedApi | undefined;
let base: string;
const logLines: Array<Record<string, unknown>> = [];

test.before(async () => {
  system = await startTestSystem();
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  api = await serveApiApp(
    apiRuntime(system.config, system.stores, createLogger({ level: 'info' }, stream)),
    probeRoutes,
  );
  base = api.url;
});

test.after.always(async () => {
  await api?.close();
  await system?.close();
});

for (const [path, cause] of [
  ['/v2/boom/error', 'a thrown Error'],
  ['/v2/boom/library', 'a library error marked expose with a 5xx status'],
  ['/v2/boom/type', 'a TypeError from the engine'],
  ['/v2/boom/string', 'a thrown non-Error value'],
] as const) {
  test(`${cause}: 500 in the error envelope, nothing of the cause in the response`, async (t) => {
    const response = await fetch(`${base}${path}`, { headers: { 'X-Request-Id': `req-${path.slice(9)}` } });
    t.is(response.status, 500);
    t.is(response.headers.get('x-request-id'), `req-${path.slice(9)}`);
    t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
    const text = await response.text();
    const body = JSON.parse(text) as {
      status: string;
      timestamp: string;
      path: string;
      error: { code: string; message: string; details?: unknown };
    };
    t.deepEqual(Object.keys(body).sort(), ['error', 'path', 'status', 'timestamp']);
    t.is(body.status, 'error');
    t.is(body.path, path);
    t.true(Number.isFinite(Date.parse(body.timestamp)));
    t.deepEqual(Object.keys(body.error).sort(), ['code', 'message'], 'no details');
    t.is(body.error.code, 'InternalServerError');
    t.is(body.error.message, 'Internal server error');
    for (const leak of [
      SECRET,
      'db-primary',
      'ECONNRESET',
      'Cannot read properties',
      'TypeError',
      '.ts:',
      '    at ',
    ])
      t.false(text.includes(leak), `the body does not contain ${JSON.stringify(leak)}: ${text}`);
  });
}

test('the cause of a 500 is logged at error level with the request id', async (t) => {
  const requestId = 'req-logged-500';
  const response = await fetch(`${base}/v2/boom/error`, { headers: { 'X-Request-Id': requestId } });
  t.is(response.status, 500);
  await response.arrayBuffer();
  const logged = logLines.find((line) => line.requestId === requestId);
  t.truthy(logged, JSON.stringify(logLines));
  t.is(logged!.level, 50, 'error level');
  const err = logged!.err as { message?: string; stack?: string };
  t.is(err.message, SECRET);
  t.regex(err.stack ?? '', /internal-error\.test\.ts/);
});
