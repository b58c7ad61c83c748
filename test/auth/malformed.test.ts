import { request } from 'node:http';
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { FlowBrowser, formOf } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// Malformed requests (wrong types, huge bodies, repeated parameters, invalid UTF-8, odd methods and
// headers) get a 4xx, never a 500, on every endpoint of the authorization server.

const {
  system,
  clients: { app },
} = setUpWorld(test, { clients: { app: {} } });

const TOKEN = '/v2/auth/oauth2/token';
const REVOKE = '/v2/auth/oauth2/revoke';

/** A raw HTTP request (bytes exactly as given), returning the status. */
function raw(
  path: string,
  body: Buffer | string,
  headers: Record<string, string>,
  method = 'POST',
): Promise<number> {
  const url = new URL(path, system.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_HEADERS = { 'content-type': 'application/json' };

function is4xx(t: ExecutionContext, status: number, what: string) {
  t.true(status >= 400 && status < 500, `${what}: got ${status}`);
}

async function post(path: string, body: string | Buffer, headers: Record<string, string>) {
  return raw(path, body, headers);
}

for (const path of [TOKEN, REVOKE]) {
  const cases: Array<[string, string | Buffer, Record<string, string>, number?]> = [
    [
      'a number where a string belongs (JSON)',
      JSON.stringify({ client_id: 123, grant_type: 'refresh_token' }),
      JSON_HEADERS,
      400,
    ],
    [
      'an object where a string belongs (JSON)',
      JSON.stringify({ client_id: { $ne: 1 }, grant_type: 'x' }),
      JSON_HEADERS,
      400,
    ],
    [
      'an array where a string belongs (JSON)',
      JSON.stringify({ client_id: ['a', 'b'], grant_type: 'x' }),
      JSON_HEADERS,
      400,
    ],
    ['a JSON array body', JSON.stringify([1, 2]), JSON_HEADERS, 400],
    ['a JSON string body', JSON.stringify('client_id'), JSON_HEADERS, 400],
    ['malformed JSON', '{"client_id": ', JSON_HEADERS, 400],
    ['a repeated parameter (form)', 'client_id=a&client_id=b&grant_type=refresh_token', FORM, 400],
    [
      'a repeated grant_type (form)',
      `client_id=${'x'}&grant_type=refresh_token&grant_type=authorization_code`,
      FORM,
      400,
    ],
    [
      'invalid UTF-8 bytes (form)',
      Buffer.from([0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x5f, 0x69, 0x64, 0x3d, 0xff, 0xfe]),
      FORM,
      400,
    ],
    [
      'invalid UTF-8 bytes (JSON)',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      JSON_HEADERS,
      400,
    ],
    ['percent-escapes that are not UTF-8 (form)', 'client_id=%FF%FE&grant_type=refresh_token', FORM, 400],
    ['a broken percent-escape (form)', 'client_id=%G1&grant_type=refresh_token', FORM, 400],
    ['a NUL character', 'client_id=a%00b&grant_type=refresh_token', FORM, 400],
    ['a body over the limit', `client_id=${'a'.repeat(64 * 1024)}`, FORM, 413],
    ['a 2 MiB JSON body', JSON.stringify({ client_id: 'x'.repeat(2 * 1024 * 1024) }), JSON_HEADERS, 413],
    ['an unsupported content type', 'client_id=a', { 'content-type': 'text/plain' }, 400],
    [
      'multipart form data',
      '--b\r\nContent-Disposition: form-data; name="client_id"\r\n\r\na\r\n--b--',
      { 'content-type': 'multipart/form-data; boundary=b' },
      400,
    ],
    [
      'a Bearer Authorization header',
      'grant_type=refresh_token',
      { ...FORM, authorization: 'Bearer abc' },
      400,
    ],
    [
      'a Basic header that is not base64',
      'grant_type=refresh_token',
      { ...FORM, authorization: 'Basic %%%' },
      400,
    ],
    [
      'a Basic header without a colon',
      'grant_type=refresh_token',
      { ...FORM, authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` },
      400,
    ],
    [
      'a Basic header with bad percent-encoding',
      'grant_type=refresh_token',
      { ...FORM, authorization: `Basic ${Buffer.from('%zz:%zz').toString('base64')}` },
      400,
    ],
    ['an empty body', '', {}, 400],
  ];
  for (const [name, body, headers, expected] of cases) {
    test(`${path}: ${name} -> ${expected ?? '4xx'}`, async (t) => {
      const status = await post(path, body, headers);
      if (expected) t.is(status, expected, name);
      else is4xx(t, status, name);
    });
  }

  test(`${path}: GET is a 4xx`, async (t) => {
    is4xx(t, (await fetch(new URL(path, system.url))).status, 'GET');
  });
}

test('token endpoint: very long and odd values are 4xx (client id, codes, refresh tokens)', async (t) => {
  const secret = app.secret!;
  const cases: Array<Record<string, string>> = [
    { client_id: 'x'.repeat(5000), client_secret: 's', grant_type: 'refresh_token', refresh_token: 'r' },
    { client_id: 'ünïcødé 🙂', client_secret: 's', grant_type: 'refresh_token', refresh_token: 'r' },
    {
      client_id: app.client.id,
      client_secret: secret,
      grant_type: 'refresh_token',
      refresh_token: 'ü'.repeat(300),
    },
    {
      client_id: app.client.id,
      client_secret: secret,
      grant_type: 'authorization_code',
      code: '../../etc',
      redirect_uri: app.redirectUri,
    },
    {
      client_id: app.client.id,
      client_secret: secret,
      grant_type: 'authorization_code',
      code: 'x'.repeat(8000),
      redirect_uri: 'x',
    },
    { client_id: app.client.id, client_secret: secret, grant_type: 'authorization_code' },
  ];
  for (const params of cases) {
    const response = await fetch(new URL(TOKEN, system.url), {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams(params),
    });
    is4xx(t, response.status, JSON.stringify(params).slice(0, 80));
  }
});

test('token endpoint: random JSON bodies never cause a 5xx (property)', async (t) => {
  const value = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 2 }),
  );
  const key = fc.constantFrom(
    'client_id',
    'client_secret',
    'grant_type',
    'code',
    'redirect_uri',
    'code_verifier',
    'refresh_token',
    'scope',
    'x',
  );
  await fc.assert(
    fc.asyncProperty(fc.dictionary(key, value), async (body) => {
      const status = await post(TOKEN, JSON.stringify(body), JSON_HEADERS);
      return status >= 400 && status < 500;
    }),
    { numRuns: 60 },
  );
  t.pass();
});

test('token endpoint: random form bodies never cause a 5xx (property)', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
      const status = await post(TOKEN, Buffer.from(bytes), FORM);
      return status >= 400 && status < 500;
    }),
    { numRuns: 60 },
  );
  t.pass();
});

test('authorization endpoint: odd query strings are 4xx pages', async (t) => {
  for (const query of [
    'client_id=%FF%FE',
    'client_id=a%00b',
    `client_id=${'x'.repeat(4000)}`,
    `client_id=${app.client.id}&redirect_uri=%ZZ`,
    `client_id=${app.client.id}&client_id=${app.client.id}`,
    `client_id=${app.client.id}&redirect_uri=${encodeURIComponent(app.redirectUri)}&scope=%00`,
    `client_id=${app.client.id}&redirect_uri=${encodeURIComponent(app.redirectUri)}&scope=PROFILE_READ&state=a&state=b`,
    `client_id=${app.client.id}&redirect_uri=${encodeURIComponent(app.redirectUri)}&scope=PROFILE_READ&state=a%00b`,
    `client_id=${app.client.id}&redirect_uri=${encodeURIComponent(app.redirectUri)}&scope=PROFILE_READ&login_hint=%00`,
  ]) {
    const response = await fetch(`${system.url}/auth/oauth2/authorize?${query}`, { redirect: 'manual' });
    is4xx(t, response.status, query.slice(0, 60));
  }
  const huge = await raw(`/auth/oauth2/authorize?client_id=${'x'.repeat(20_000)}`, '', {}, 'GET');
  is4xx(t, huge, 'a query larger than the header limit');
});

test('interaction pages: odd uids, bodies and methods are 4xx', async (t) => {
  for (const path of [
    '/auth/interaction/%FF',
    '/auth/interaction/..%2F..',
    `/auth/interaction/${'u'.repeat(3000)}`,
  ]) {
    is4xx(t, (await fetch(new URL(path, system.url))).status, path);
  }
  is4xx(t, await raw('/auth/interaction/abc/signin', 'email=a', FORM), 'sign-in without an interaction');
  is4xx(t, await raw('/auth/interaction/abc/unknown', 'x', FORM), 'unknown step');
  is4xx(
    t,
    (await fetch(`${system.url}/auth/verify-email?token=%FF`)).status,
    'verify-email with a bad token',
  );
  is4xx(t, (await fetch(`${system.url}/auth/verify-email?token=a&token=b`)).status, 'verify-email twice');
});

test('sign-in form: malformed bodies of a live interaction are 4xx', async (t) => {
  const browser = new FlowBrowser(system.url);
  const page = await browser.open(
    `/auth/oauth2/authorize?client_id=${app.client.id}&redirect_uri=${encodeURIComponent(app.redirectUri)}&scope=PROFILE_READ`,
  );
  if (page.kind !== 'page') return t.fail();
  const form = formOf(page.html, '/signin')!;
  const send = (body: string | Buffer, headers: Record<string, string> = FORM) =>
    browser.request(new URL(form.action, system.url), {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
  const csrf = `_csrf=${encodeURIComponent(form.hidden._csrf!)}`;
  for (const [name, body, headers] of [
    ['invalid UTF-8', Buffer.concat([Buffer.from(`${csrf}&email=`), Buffer.from([0xc3, 0x28])]), FORM],
    ['repeated fields', `${csrf}&email=a@b.c&email=d@e.f&password=x`, FORM],
    ['huge body', `${csrf}&password=${'p'.repeat(100_000)}`, FORM],
    ['JSON instead of a form', JSON.stringify({ email: 'a' }), JSON_HEADERS],
    ['a NUL in the e-mail', `${csrf}&email=a%00@b.c&password=x`, FORM],
  ] as const) {
    const response = await send(body, headers);
    is4xx(t, response.status, name);
  }
  // The page still works afterwards.
  const ok = await browser.submit(page, '/signin', { email: 'nobody@example.com', password: 'whatever' });
  t.is(ok.status, 401);
});
