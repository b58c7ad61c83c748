import { defineRoute } from '@sched/api/routing/route';
import test from 'ava';
import { z } from 'zod';
import { named } from '@sched/api/openapi/named';
import { setUpTestSystem } from '../support/system.ts';
import { setUpProbeApi } from './helpers/second-api.ts';

/**
 * What requests reach which route. The API groups its routes by first path segment (one router
 * compiled once, routing/route-table.ts, for speed); these answers are the ones @koa/router gave:
 * 405 with Allow for another method of a known path, OPTIONS, paths matched without case, the
 * docs routes, 404 for unknown segments, and the first declared route winning within a segment.
 */

const system = setUpTestSystem(test);

/** Named, as every response schema is, so the probe app serves its OpenAPI document too. */
const probeTag = named('ProbeTag', z.string(), 'fixed');

const probe = (path: string, tag: string, method: 'GET' | 'POST' | 'DELETE' = 'GET') =>
  defineRoute({
    method,
    path,
    summary: `probe ${tag}`,
    tags: ['Probe'],
    auth: 'public',
    response: { status: 200, description: 'the tag of the probe', schema: probeTag },
    handler: async () => ({ data: tag }),
  });

/** Answers its decoded parameter. */
const echo = defineRoute({
  method: 'GET',
  path: '/echo/:value/tail',
  summary: 'echo',
  tags: ['Probe'],
  auth: 'public',
  params: z.object({ value: z.string() }),
  response: { status: 200, description: 'the parameter', schema: probeTag },
  handler: async ({ params }) => ({ data: params.value }),
});

const probeRoutes = [
  echo,
  probe('/order/:anything', 'param-first'),
  probe('/order/literal', 'literal-second'),
  probe('/things/fixed', 'fixed'),
  probe('/things/:thingId', 'by-id'),
  probe('/things/:thingId', 'delete', 'DELETE'),
  probe('/other', 'other'),
  probe('/other', 'other-post', 'POST'),
];

const server = setUpProbeApi(test, system, probeRoutes);

async function send(method: string, path: string) {
  const response = await fetch(`${server.url}${path}`, { method });
  const text = await response.text();
  return { status: response.status, allow: response.headers.get('allow'), text };
}

test('a request reaches its route; the first declared route of a path wins', async (t) => {
  t.is((await send('GET', '/v2/things/fixed')).text, '{"status":"success","data":"fixed"}');
  t.is((await send('GET', '/v2/things/12')).text, '{"status":"success","data":"by-id"}');
  t.is((await send('DELETE', '/v2/things/12')).text, '{"status":"success","data":"delete"}');
  t.is((await send('POST', '/v2/other')).text, '{"status":"success","data":"other-post"}');
});

test('paths match without case, and with a trailing slash', async (t) => {
  t.is((await send('GET', '/V2/THINGS/fixed')).status, 200);
  t.is((await send('GET', '/v2/Other')).status, 200);
  t.is((await send('GET', '/v2/other/')).status, 200);
});

test('another method of a known path: 405 with Allow; OPTIONS lists the methods', async (t) => {
  const post = await send('POST', '/v2/things/12');
  t.is(post.status, 405);
  t.deepEqual(post.allow?.split(', ').sort(), ['DELETE', 'GET', 'HEAD']);
  const options = await send('OPTIONS', '/v2/other');
  t.is(options.status, 200);
  t.deepEqual(options.allow?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
});

test('unknown paths are 404 envelopes; the docs routes are served', async (t) => {
  for (const path of ['/v2/nothing-here', '/v2/things', '/v2', '/v2/', '/elsewhere', '/v2x/other']) {
    const response = await send('GET', path);
    t.is(response.status, 404, path);
    t.is(JSON.parse(response.text).error.code, 'NotFound', path);
  }
  t.is((await send('GET', '/v2/openapi.json')).status, 200);
  t.is((await send('GET', '/v2/docs')).status, 200);
});

test('declaration order decides, not specificity: a parameter route declared first wins', async (t) => {
  t.is((await send('GET', '/v2/order/literal')).text, '{"status":"success","data":"param-first"}');
});

test('parameters are percent-decoded; empty segments match no parameter', async (t) => {
  t.is((await send('GET', '/v2/echo/a%20b%C3%A9/tail')).text, '{"status":"success","data":"a bé"}');
  t.is((await send('GET', '/v2/ECHO/x/TAIL/')).text, '{"status":"success","data":"x"}');
  t.is((await send('GET', '/v2/echo//tail')).status, 404);
  t.is((await send('GET', '/v2/echo/x/tail/more')).status, 404);
});

test('a GET route answers HEAD; a method no route implements is 501 with Allow', async (t) => {
  const head = await send('HEAD', '/v2/other');
  t.is(head.status, 200);
  t.is(head.text, '');
  const trace = await fetch(`${server.url}/v2/other`, { method: 'PROPFIND' });
  t.is(trace.status, 501);
  t.deepEqual(trace.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
});

test('matched paths are remembered per method: the same answers again, after a flood of others too', async (t) => {
  const expected: Array<[string, string, string]> = [
    ['GET', '/v2/things/12', '{"status":"success","data":"by-id"}'],
    ['DELETE', '/v2/things/12', '{"status":"success","data":"delete"}'],
    ['GET', '/v2/order/literal', '{"status":"success","data":"param-first"}'],
    ['GET', '/v2/echo/a/tail', '{"status":"success","data":"a"}'],
    ['GET', '/v2/echo/b/tail', '{"status":"success","data":"b"}'],
    ['GET', '/v2/echo/a%20b/tail', '{"status":"success","data":"a b"}'],
  ];
  const check = async (label: string) => {
    for (const [method, path, text] of expected)
      t.is((await send(method, path)).text, text, `${label}: ${method} ${path}`);
    t.is((await send('POST', '/v2/things/12')).status, 405, `${label}: another method of a remembered path`);
  };
  await check('first');
  await check('again');
  // More distinct paths than the memo keeps: it is emptied and filled again, answers unchanged.
  for (let i = 0; i < 2100; i += 100) {
    await Promise.all(
      Array.from({ length: 100 }, async (_, j) => {
        const answer = await send('GET', `/v2/echo/v${i + j}/tail`);
        if (answer.text !== `{"status":"success","data":"v${i + j}"}`) t.fail(`v${i + j}: ${answer.text}`);
      }),
    );
  }
  await check('after the flood');
});
