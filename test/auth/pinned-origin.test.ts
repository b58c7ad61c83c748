import { request } from 'node:http';
import test from 'ava';
import { startTestSystem, type TestSystem } from '../support/system.ts';

/**
 * Issuer and every advertised URL come from APP_URL, never from the Host or X-Forwarded-Host
 * header; Strict-Transport-Security goes on every response when the public URL is https.
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
