import test from 'ava';
import { setUpWorld } from '../support/world.ts';

/**
 * CORS on the bearer endpoints only (the resource API, token, revocation, discovery): any origin,
 * no credentials, preflight cached, the request headers they need allowed; pages (the API's docs
 * page included) and cookie-based endpoints send none.
 */

const world = setUpWorld(test);
const ORIGIN = 'https://spa.example.test';

const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  fetch(`${world.system.url}${path}`, { method, headers: { origin: ORIGIN, ...headers }, body });

test('preflight of the API and the token endpoint: 204, any origin, no credentials, cached', async (t) => {
  for (const path of [
    '/v2/me',
    '/v2/teams/1/memberships',
    '/v2/auth/oauth2/token',
    '/v2/auth/oauth2/revoke',
  ]) {
    const response = await send('OPTIONS', path, {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    });
    t.is(response.status, 204, path);
    t.is(response.headers.get('access-control-allow-origin'), '*', path);
    t.regex(response.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    t.regex(response.headers.get('access-control-allow-methods') ?? '', /PATCH/);
    t.is(response.headers.get('access-control-max-age'), '86400');
    t.is(response.headers.get('access-control-allow-credentials'), null);
  }
});

test('preflight of the managed-user routes allows their x-svc-secret-key header', async (t) => {
  for (const path of ['/v2/oauth-clients/some-client/users', '/v2/oauth-clients/some-client/users/1']) {
    const response = await send('OPTIONS', path, {
      'access-control-request-method': 'PATCH',
      'access-control-request-headers': 'x-svc-secret-key, content-type',
    });
    t.is(response.status, 204, path);
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
    t.true(allowed.includes('x-svc-secret-key'), path);
    t.true(allowed.includes('content-type'), path);
  }
});

test('answers of bearer endpoints, errors included, are readable cross-origin', async (t) => {
  const me = await send('GET', '/v2/me');
  t.is(me.status, 401);
  t.is(me.headers.get('access-control-allow-origin'), '*');
  t.regex(me.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
  const me2 = await send('GET', '/v2/me', { authorization: `Bearer ${world.user.apiKey}` });
  t.is(me2.status, 200);
  t.is(me2.headers.get('access-control-allow-origin'), '*');
  const discovery = await send('GET', '/.well-known/oauth-authorization-server');
  t.is(discovery.headers.get('access-control-allow-origin'), '*');
  const token = await send(
    'POST',
    '/v2/auth/oauth2/token',
    { 'content-type': 'application/x-www-form-urlencoded' },
    'grant_type=refresh_token&client_id=nobody&refresh_token=x',
  );
  t.is(token.status, 401);
  t.is(token.headers.get('access-control-allow-origin'), '*');
});

test('pages and cookie-based endpoints send no CORS headers; no Origin, no headers', async (t) => {
  for (const path of [
    '/auth/settings/sign-in',
    '/auth/oauth2/authorize?client_id=x',
    '/v2/docs',
    '/v2/docs/',
    '/V2/Docs',
  ]) {
    const page = await send('GET', path);
    t.is(page.headers.get('access-control-allow-origin'), null, path);
    const preflight = await send('OPTIONS', path, { 'access-control-request-method': 'POST' });
    t.is(preflight.headers.get('access-control-allow-origin'), null, path);
  }
  const docs = await send('GET', '/v2/docs');
  t.is(docs.status, 200);
  t.regex(docs.headers.get('content-type') ?? '', /text\/html/);
  t.is(docs.headers.get('access-control-expose-headers'), null);
  // The OpenAPI document is JSON that tools fetch from anywhere: it keeps CORS.
  const openapi = await send('GET', '/v2/openapi.json');
  t.is(openapi.status, 200);
  t.is(openapi.headers.get('access-control-allow-origin'), '*');
  const plain = await fetch(`${world.system.url}/v2/me`);
  t.is(plain.headers.get('access-control-allow-origin'), null);
});
