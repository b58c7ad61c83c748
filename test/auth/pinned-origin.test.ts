import { request } from 'node:http';
import { connect } from 'node:net';
import test from 'ava';
import { startTestSystem, type TestSystem } from '../support/system.ts';

/**
 * Issuer and every advertised URL come from APP_URL, never from the Host or X-Forwarded-Host
 * header; Strict-Transport-Security goes on every response when the public URL is https, the
 * HTTP server's own answers (health, metrics, the parser's refusals) included.
 */

/** A GET with headers fetch will not let us set (Host). */
function get(system: TestSystem, path: string, headers: Record<string, string>) {
  const url = new URL(system.url);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

/** Raw bytes on a fresh connection (what Node's HTTP client refuses to send); the raw answer's head. */
function sendRaw(system: TestSystem, bytes: string) {
  const url = new URL(system.url);
  return new Promise<{ status: number; headers: Map<string, string> }>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [statusLine = '', ...lines] = answer.split('\r\n\r\n', 1)[0]!.split('\r\n');
      const headers = new Map(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
  });
}

test('discovery advertises the configured origin whatever Host and X-Forwarded-Host say', async (t) => {
  const system = await startTestSystem({ TRUST_PROXY: 'true' });
  t.teardown(() => system.close());
  const answer = await get(system, '/.well-known/oauth-authorization-server', {
    host: 'evil.example',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-proto': 'https',
  });
  t.is(answer.status, 200);
  const document = JSON.parse(answer.body) as Record<string, unknown>;
  const urls = Object.entries(document).filter(
    ([, value]) => typeof value === 'string' && /^https?:/.test(value),
  );
  t.true(urls.length >= 4);
  for (const [name, value] of urls)
    t.true(String(value).startsWith(`${system.url}/`) || value === system.url, name);
  t.false(answer.body.includes('evil.example'));
  t.is(answer.headers['strict-transport-security'], undefined, 'no HSTS over plain http');
});

test('an https public URL puts Strict-Transport-Security on every response of both services', async (t) => {
  const system = await startTestSystem({
    APP_URL: 'https://sched.example.test',
    BASE_URL: 'https://sched.example.test',
  });
  t.teardown(() => system.close());
  for (const path of [
    '/.well-known/oauth-authorization-server',
    '/v2/me',
    '/v2/openapi.json',
    '/auth/settings/sign-in',
  ]) {
    const answer = await get(system, path, {});
    t.is(answer.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains', path);
  }
  const discovery = JSON.parse((await get(system, '/.well-known/oauth-authorization-server', {})).body);
  t.is(discovery.token_endpoint, 'https://sched.example.test/v2/auth/oauth2/token');
});

test("an https public URL: the HTTP server's own answers carry the security headers and a request id", async (t) => {
  const system = await startTestSystem({
    APP_URL: 'https://sched.example.test',
    BASE_URL: 'https://sched.example.test',
    METRICS_ENABLED: 'true',
  });
  t.teardown(() => system.close());
  const hsts = 'max-age=31536000; includeSubDomains';
  for (const path of ['/health/alive', '/health/ready', '/metrics']) {
    const answer = await get(system, path, {});
    t.is(answer.status, 200, path);
    t.is(answer.headers['strict-transport-security'], hsts, path);
    t.is(answer.headers['x-content-type-options'], 'nosniff', path);
    t.regex(String(answer.headers['x-request-id']), /^[\w.:-]+$/, path);
  }
  const kept = await get(system, '/health/alive', { 'x-request-id': 'gateway-id-1' });
  t.is(kept.headers['x-request-id'], 'gateway-id-1', 'a valid incoming id is kept');

  const tooLarge = await sendRaw(
    system,
    `GET /v2/me HTTP/1.1\r\nHost: sched.example.test\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  );
  const malformed = await sendRaw(system, 'GET /v2/me HTTP/1.1\r\nHost sched.example.test\r\n\r\n');
  for (const [name, answer, status] of [
    ['431', tooLarge, 431],
    ['malformed', malformed, 400],
  ] as const) {
    t.is(answer.status, status, name);
    t.is(answer.headers.get('strict-transport-security'), hsts, name);
    t.is(answer.headers.get('x-content-type-options'), 'nosniff', name);
    t.is(answer.headers.get('x-frame-options'), 'DENY', name);
    t.regex(answer.headers.get('x-request-id') ?? '', /^[\w.:-]+$/, name);
  }
  t.not(tooLarge.headers.get('x-request-id'), malformed.headers.get('x-request-id'), 'a fresh id each');
});

test('with APP_URL and BASE_URL apart, the OpenAPI document advertises the OAuth URLs discovery does', async (t) => {
  const system = await startTestSystem({
    APP_URL: 'https://app.example.test',
    BASE_URL: 'https://api.example.test',
  });
  t.teardown(() => system.close());
  const discovery = JSON.parse((await get(system, '/.well-known/oauth-authorization-server', {})).body);
  const openapi = JSON.parse((await get(system, '/v2/openapi.json', {})).body);
  const flow = openapi.components.securitySchemes.oauth2.flows.authorizationCode;
  t.is(flow.authorizationUrl, discovery.authorization_endpoint);
  t.is(flow.tokenUrl, discovery.token_endpoint);
  t.is(flow.refreshUrl, discovery.token_endpoint);
  t.is(discovery.token_endpoint, 'https://app.example.test/v2/auth/oauth2/token');
  // The resource API itself stays on BASE_URL.
  t.deepEqual(openapi.servers, [{ url: 'https://api.example.test/v2' }]);
});
