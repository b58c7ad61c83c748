import { named } from '@sched/api/openapi/named';
import { checkResult } from '@sched/api/pipeline/response-check';
import { type AnyRoute, defineRoute } from '@sched/api/routing/route';
import test from 'ava';
import { z } from 'zod';
import { apiRuntime, type ServedApi, serveApiApp } from '../support/api-app.ts';
import { apiClient } from '../support/http.ts';
import { setUpTestSystem } from '../support/system.ts';

/**
 * Outside production the mount checks each handler's answer against its declaration (status,
 * data, pagination) before sending it: a mismatch is a 500, not a wrong answer sent as documented.
 * Production skips the check.
 */

const thing = named('ProbeThing', z.object({ id: z.int(), name: z.string() }), { id: 1, name: 'a' });
const page = named('ProbePage', z.object({ next: z.string().nullable() }), { next: null });

const route = (response: AnyRoute['response']): AnyRoute =>
  defineRoute({
    method: 'GET',
    path: '/probe',
    summary: 'probe',
    tags: ['Probe'],
    auth: 'public',
    response,
    handler: () => ({}),
  }) as AnyRoute;

test('an answer as declared passes', (t) => {
  t.notThrows(() =>
    checkResult(route({ status: 200, description: 'ok', schema: thing }), { data: { id: 1, name: 'a' } }),
  );
  t.notThrows(() =>
    checkResult(route({ status: 201, description: 'ok', schema: z.array(thing), pagination: page }), {
      status: 201,
      data: [],
      pagination: { next: 'x' },
    }),
  );
  t.notThrows(() => checkResult(route({ status: 204, description: 'none' }), { status: 204 }));
});

test('another status, data its schema refuses, a missing schema or undeclared pagination is refused', (t) => {
  const declared = route({ status: 200, description: 'ok', schema: thing });
  t.throws(() => checkResult(declared, { status: 201, data: { id: 1, name: 'a' } }), {
    message: /GET \/probe .*status 201 where 200 is declared/,
  });
  t.throws(() => checkResult(declared, { data: { id: 'one', name: 'a' } }), { message: /data\.id/ });
  t.throws(() => checkResult(declared, { data: { id: 1, name: 'a' }, pagination: { next: null } }), {
    message: /pagination sent but not declared/,
  });
  t.throws(() => checkResult(route({ status: 200, description: 'no schema' }), { data: 1 }), {
    message: /no response schema/,
  });
  t.throws(
    () =>
      checkResult(route({ status: 200, description: 'ok', schema: z.array(thing), pagination: page }), {
        data: [],
        pagination: { next: 3 },
      }),
    { message: /pagination\.next/ },
  );
});

const system = setUpTestSystem(test);
const wrong = defineRoute({
  method: 'GET',
  path: '/probe/wrong',
  summary: 'answers a shape other than declared',
  tags: ['Probe'],
  auth: 'public',
  response: { status: 200, description: 'a thing', schema: thing },
  handler: () => ({ data: { id: 'not a number', name: 'a' } as unknown as z.output<typeof thing> }),
});
let development: ServedApi;
let production: ServedApi;
test.before(async () => {
  development = await serveApiApp(apiRuntime(system.config, system.stores), [wrong]);
  production = await serveApiApp(apiRuntime({ ...system.config, env: 'production' }, system.stores), [wrong]);
});
test.after.always(async () => {
  await development?.close();
  await production?.close();
});

test('outside production the mount answers 500 for an answer that differs from its declaration; production sends it', async (t) => {
  const checked = await apiClient(() => development.url)('GET', '/v2/probe/wrong');
  t.is(checked.status, 500);
  t.is(checked.body.error.code, 'InternalServerError');
  const unchecked = await apiClient(() => production.url)('GET', '/v2/probe/wrong');
  t.is(unchecked.status, 200);
  t.is(unchecked.body.data.id, 'not a number');
});
