import { defineRoute } from '@sched/api/routing/route';
import test from 'ava';
import { z } from 'zod';
import { named } from '@sched/api/openapi/named';
import { setUpTestSystem } from '../support/system.ts';
import { setUpProbeApi } from './helpers/second-api.ts';

/**
 * What requests reach which route. The API groups its routes by first path segment (one router
 * per segment, routing/segments.ts, for speed); these answers are the ones a single router gave:
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

const probeRoutes = [
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
