import test from 'ava';
import { authorizeUrl } from '../support/oauth.ts';
import { setUpTestSystem } from '../support/system.ts';
import { insertClient } from '../support/factories.ts';

// With an https APP_URL every cookie is Secure, also when TLS ends at a gateway and the request
// arrives over plain http.

const system = setUpTestSystem(test, { APP_URL: 'https://auth.example.test' });

test('cookies are Secure, HttpOnly and SameSite when APP_URL is https', async (t) => {
  const client = await insertClient(system.stores.db.knex);
  const redirect = await fetch(
    authorizeUrl(system.url, {
      client_id: client.client.id,
      redirect_uri: client.redirectUri,
      scope: 'PROFILE_READ',
    }),
    { redirect: 'manual' },
  );
  t.is(redirect.status, 303);
  const cookies = redirect.headers.getSetCookie();
  t.true(cookies.length > 0);
  for (const cookie of cookies) {
    t.regex(cookie.toLowerCase(), /; secure/, cookie);
    t.regex(cookie.toLowerCase(), /; httponly/, cookie);
    t.regex(cookie.toLowerCase(), /; samesite=lax/, cookie);
  }
  const page = await fetch(new URL(redirect.headers.get('location')!, system.url), {
    headers: { cookie: cookies.map((c) => c.split(';')[0]).join('; ') },
  });
  t.is(page.status, 200);
  const csrf = page.headers.getSetCookie().find((c) => c.startsWith('auth.csrf='));
  t.regex(csrf?.toLowerCase() ?? '', /; secure/);
});

test('the issuer is APP_URL', async (t) => {
  const response = await fetch(`${system.url}/.well-known/oauth-authorization-server`);
  const metadata = (await response.json()) as { issuer: string };
  t.is(metadata.issuer, 'https://auth.example.test');
});
