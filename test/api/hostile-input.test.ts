import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import test, { type ExecutionContext } from 'ava';
import { insertOrganization, insertUser, insertMembership, type TestUser } from '../support/factories.ts';
import type { Json } from '../support/http.ts';
import { setUpWorld } from '../support/world.ts';

/**
 * Hostile input is a 4xx in the documented error shape, never a 500: NUL characters and lone
 * surrogates anywhere (body, path, query; API and OAuth endpoints), encodings the server does not
 * decode or bodies that are not what their encoding claims, headers over the limit. Each is refused
 * where input enters (shared/kit/src/http/unfit-text.ts, the API's JSON body parser, the
 * authorization server's parameter reader, the HTTP server's parser errors).
 */

const world = setUpWorld(test);

async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
) {
  const response = await fetch(`${world.system.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : new Uint8Array(body) }),
  });
  const text = await response.text();
  let json: Json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

let owner: TestUser;
let orgId: number;
test.before(async () => {
  owner = await insertUser(world.knex());
  orgId = await insertOrganization(world.knex());
  await insertMembership(world.knex(), { userId: owner.id, organizationId: orgId, role: 'OWNER' });
});

const json = () => ({ authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' });

function isEnvelope(
  t: ExecutionContext,
  response: Awaited<ReturnType<typeof send>>,
  status: number,
  message: RegExp,
) {
  t.is(response.status, status, response.text);
  t.is(response.json?.status, 'error');
  t.regex(response.json?.error?.message ?? '', message);
}

test('a NUL or a lone surrogate in a JSON body is a 400 naming the field, and nothing is stored', async (t) => {
  isEnvelope(
    t,
    await send('POST', '/v2/teams', json(), JSON.stringify({ name: 'a\u0000b' })),
    400,
    /body\.name contains a NUL/,
  );
  isEnvelope(
    t,
    await send('POST', '/v2/teams', json(), '{"name":"a\\ud800b"}'),
    400,
    /body\.name contains a lone surrogate/,
  );
  isEnvelope(
    t,
    await send(
      'POST',
      `/v2/organizations/${orgId}/roles`,
      json(),
      '{"name":"ok","permissions":["a\\udc00"]}',
    ),
    400,
    /body\.permissions\.0 contains a lone surrogate/,
  );
  isEnvelope(
    t,
    await send('POST', '/v2/teams', json(), '{"na\\u0000me":"x"}'),
    400,
    /member name contains a NUL/,
  );
  t.falsy(await world.knex()('teams').where('name', 'like', 'a%b').first());
});

test('a NUL, a lone surrogate or broken percent-encoding in the path or query is a 400', async (t) => {
  const auth = { authorization: `Bearer ${owner.apiKey}` };
  isEnvelope(
    t,
    await send('GET', `/v2/organizations/${orgId}/roles/a%00b`, auth),
    400,
    /path: it contains a NUL/,
  );
  isEnvelope(
    t,
    await send('GET', `/v2/organizations/${orgId}/roles/a%ED%A0%80b`, auth),
    400,
    /path: not valid percent-encoded UTF-8/,
  );
  isEnvelope(t, await send('GET', '/v2/teams?skip=0%00', auth), 400, /query: it contains a NUL/);
  isEnvelope(t, await send('GET', '/v2/teams?skip=%zz', auth), 400, /query: not valid percent-encoded/);
  // The managed-user family's clientId path parameter, unauthenticated.
  isEnvelope(t, await send('GET', '/v2/oauth-clients/a%00b/users', {}), 400, /NUL/);
  // Ordinary escapes still work.
  t.is((await send('GET', '/v2/teams?skip=0&take=%31', auth)).status, 200);
});

test('bodies that are not what their Content-Encoding says are 400; encodings we do not decode are 415', async (t) => {
  const body = JSON.stringify({ name: 'Plain' });
  isEnvelope(
    t,
    await send('POST', '/v2/teams', { ...json(), 'content-encoding': 'gzip' }, body),
    400,
    /not valid gzip data/,
  );
  isEnvelope(
    t,
    await send('POST', '/v2/teams', { ...json(), 'content-encoding': 'deflate' }, body),
    400,
    /not valid deflate data/,
  );
  isEnvelope(
    t,
    await send('POST', '/v2/teams', { ...json(), 'content-encoding': 'br' }, body),
    400,
    /not valid br data/,
  );
  isEnvelope(
    t,
    await send('POST', '/v2/teams', { ...json(), 'content-encoding': 'compress' }, body),
    415,
    /Content-Encoding compress is not supported/,
  );
  const gzipped = await send(
    'POST',
    '/v2/teams',
    { ...json(), 'content-encoding': 'gzip' },
    gzipSync(JSON.stringify({ name: 'Zipped' })),
  );
  t.is(gzipped.status, 201);
});

test('OAuth endpoints refuse a NUL, a lone surrogate and encoded bodies with invalid_request', async (t) => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  for (const [path, headers, body] of [
    ['/v2/auth/oauth2/token', form, 'grant_type=refresh_token&client_id=a%00b&refresh_token=x'],
    [
      '/v2/auth/oauth2/token',
      { 'content-type': 'application/json' },
      '{"grant_type":"refresh_token","client_id":"a\\ud800","refresh_token":"x"}',
    ],
    [
      '/v2/auth/oauth2/revoke',
      { 'content-type': 'application/json' },
      '{"client_id":"a\\ud800","token":"x"}',
    ],
    [
      '/v2/auth/oauth2/token',
      { ...form, 'content-encoding': 'gzip' },
      'grant_type=refresh_token&client_id=x&refresh_token=x',
    ],
  ] as const) {
    const response = await send('POST', path, headers, body);
    t.is(response.status, 400, `${path} ${body}`);
    t.is(response.json?.error, 'invalid_request');
  }
  const page = await send('GET', '/auth/oauth2/authorize?client_id=a%00b', {});
  t.is(page.status, 400);
});

test('HTTP Basic credentials with a NUL, a lone surrogate or invalid UTF-8 are a 400 on every client endpoint', async (t) => {
  const basic = (bytes: Buffer) => ({
    'content-type': 'application/x-www-form-urlencoded',
    authorization: `Basic ${bytes.toString('base64')}`,
  });
  const credentials: Array<[string, Buffer]> = [
    ['a raw NUL', Buffer.from('a\u0000b:secret')],
    ['a percent-encoded NUL', Buffer.from('a%00b:secret')],
    ['a NUL in the secret', Buffer.from('client:se%00cret')],
    ['a percent-encoded lone surrogate', Buffer.from('a%ED%A0%80b:secret')],
    [
      'invalid UTF-8 bytes',
      Buffer.concat([Buffer.from('a'), Buffer.from([0xff, 0xfe]), Buffer.from(':secret')]),
    ],
  ];
  for (const path of ['/v2/auth/oauth2/token', '/v2/auth/oauth2/revoke', '/v2/auth/oauth2/introspect']) {
    for (const [what, bytes] of credentials) {
      const response = await send(
        'POST',
        path,
        basic(bytes),
        'grant_type=refresh_token&refresh_token=x&token=x',
      );
      t.is(response.status, 400, `${path} ${what}: ${response.text}`);
      t.is(response.json?.error, 'invalid_request', `${path} ${what}`);
      t.regex(response.json?.error_description ?? '', /not properly encoded/, `${path} ${what}`);
    }
  }
});

test('headers over the limit get a 431 in the error envelope', async (t) => {
  const url = new URL(world.system.url);
  const answer = await new Promise<{
    status: number | undefined;
    headers: Record<string, unknown>;
    body: string;
  }>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: '/v2/me', headers: { 'x-big': 'a'.repeat(20_000) } },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
  t.is(answer.status, 431);
  const body = JSON.parse(answer.body);
  t.like(body, { status: 'error', path: '/v2/me', error: { code: 'RequestHeaderFieldsTooLarge' } });
  // Written by the server itself, it still carries what every answer does.
  t.truthy(answer.headers['x-request-id']);
  t.is(answer.headers['x-content-type-options'], 'nosniff');
});

test('a method the path does not take is a 405 in the envelope, with Allow', async (t) => {
  const response = await send('DELETE', '/v2/me/connected-apps', { authorization: `Bearer ${owner.apiKey}` });
  isEnvelope(t, response, 405, /DELETE is not allowed here/);
  t.is(response.json?.error?.code, 'MethodNotAllowed');
  const allowed = await fetch(`${world.system.url}/v2/me/connected-apps`, { method: 'PUT' });
  t.regex(allowed.headers.get('allow') ?? '', /GET/);
});
