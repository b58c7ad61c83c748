import test from 'ava';
import { authorizeUrl, FlowBrowser, formOf } from '../support/oauth.ts';
import { setUpTestSystem } from '../support/system.ts';
import { insertClient, insertUser } from '../support/factories.ts';

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

/** The same path and query on the test server (locations may name the https APP_URL). */
const local = (location: string) => {
  const url = new URL(location, system.url);
  return `${url.pathname}${url.search}`;
};

const sessionCookie = (response: Response) =>
  response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith('auth.session='))
    ?.toLowerCase() ?? '';

// The session cookie of a sign-in is set by our own code (not oidc-provider's cookie options), on
// the sign-in POST: once for an authorization's sign-in step, once for the settings sign-in.
test('the session cookie a sign-in sets is Secure, HttpOnly and SameSite (authorization and settings)', async (t) => {
  const client = await insertClient(system.stores.db.knex);
  const user = await insertUser(system.stores.db.knex);

  const inFlow = new FlowBrowser(system.url);
  const redirect = await inFlow.request(
    authorizeUrl(system.url, {
      client_id: client.client.id,
      redirect_uri: client.redirectUri,
      scope: 'PROFILE_READ',
    }),
  );
  const signInPage = await inFlow.request(local(redirect.headers.get('location')!));
  const flowForm = formOf(await signInPage.text(), '/signin')!;
  const flowSignIn = await inFlow.request(local(new URL(flowForm.action, system.url).href), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...flowForm.hidden, email: user.email, password: user.password }),
  });
  t.is(flowSignIn.status, 303);
  t.regex(sessionCookie(flowSignIn), /; secure/);
  t.regex(sessionCookie(flowSignIn), /; httponly/);
  t.regex(sessionCookie(flowSignIn), /; samesite=lax/);

  const inSettings = new FlowBrowser(system.url);
  const settingsPage = await inSettings.request('/auth/settings/sign-in');
  const settingsForm = formOf(await settingsPage.text(), '/auth/settings/sign-in')!;
  const settingsSignIn = await inSettings.request(local(new URL(settingsForm.action, system.url).href), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...settingsForm.hidden, email: user.email, password: user.password }),
  });
  t.is(settingsSignIn.status, 303);
  t.regex(sessionCookie(settingsSignIn), /; secure/);
  t.regex(sessionCookie(settingsSignIn), /; httponly/);
  t.regex(sessionCookie(settingsSignIn), /; samesite=lax/);
});
