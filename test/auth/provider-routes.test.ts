import test from 'ava';
import { setUpWorld } from '../support/world.ts';

// Only the routes we serve reach oidc-provider (services/auth/src/endpoints/table.ts): any
// other path under the authorization server's prefixes is our 404, in our error shape.

const { system } = setUpWorld(test);

async function send(method: string, path: string) {
  const response = await fetch(`${system.url}${path}`, {
    method,
    redirect: 'manual',
    headers: { accept: 'application/json' },
  });
  const text = await response.text();
  return { status: response.status, text };
}

for (const [method, path] of [
  // oidc-provider's own routes, mounted by it, which this server does not serve.
  ['GET', '/auth/oauth2/end-session'],
  ['POST', '/auth/oauth2/end-session/confirm'],
  ['GET', '/v2/auth/oauth2/nothing'],
  ['GET', '/.well-known/webfinger'],
] as const) {
  test(`${method} ${path}: 404 in our error shape`, async (t) => {
    const { status, text } = await send(method, path);
    t.is(status, 404, text);
    t.notRegex(text, /unrecognized route|invalid_request/, 'not oidc-provider’s own answer');
  });
}

test('the provider routes we serve still reach it: userinfo without a token is its 401', async (t) => {
  const { status, text } = await send('GET', '/v2/auth/oauth2/userinfo');
  t.is(status, 401, text);
});
