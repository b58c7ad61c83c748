import { readdir, readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import test from 'ava';
import * as oauth from 'oauth4webapi';
import * as browserApp from '../../docs/examples/browser-app.ts';
import { signInFromNativeApp } from '../../docs/examples/native-app.ts';
import { type NewClient, registerClient } from '../../docs/examples/register-client.ts';
import {
  checkBearer,
  introspectWithFetch,
  introspectWithOauth4webapi,
  registerResourceServer,
} from '../../docs/examples/resource-server.ts';
import * as webApp from '../../docs/examples/web-app.ts';
import { insertUser } from '../support/factories.ts';
import { authorizeInBrowser } from '../support/oauth.ts';
import { freePort, ROOT } from '../support/process.ts';
import { setUpWorld } from '../support/world.ts';

/**
 * docs/client-developers.md is honest: its code blocks are the files of docs/examples/ verbatim,
 * and each recipe's code runs here against the whole system (clients registered through the API
 * and approved by an administrator, the user's browser played by FlowBrowser).
 */

const { system, call, knex, admin, user } = setUpWorld(test);

const PAGE = `${ROOT}docs/client-developers.md`;
const EXAMPLES = `${ROOT}docs/examples/`;

/** Registers a client as its developer would, then approves it as a service administrator. */
async function registerApproved(client: NewClient) {
  const registered = await registerClient(system.url, user.apiKey, client);
  if (registered.reviewStatus !== 'PENDING') throw new Error(`unexpected status ${registered.reviewStatus}`);
  const approved = await call('POST', `/v2/admin/oauth-clients/${registered.id}/approve`, {
    token: admin.apiKey,
  });
  if (approved.status !== 200) throw new Error(`approval failed: ${JSON.stringify(approved.body)}`);
  return registered;
}

test('the page shows every example file verbatim, and README links the page', async (t) => {
  const page = await readFile(PAGE, 'utf8');
  const included = new Set<string>();
  for (const match of page.matchAll(
    /<!-- example: (docs\/examples\/[\w.-]+) -->\n```(\w+)\n([\s\S]*?)```\n/g,
  )) {
    const [, path, , code] = match;
    t.is(code, await readFile(`${ROOT}${path}`, 'utf8'), `${path} differs from its block in the page`);
    included.add(path!);
  }
  const files = (await readdir(EXAMPLES)).filter((name) => name.endsWith('.ts'));
  t.true(files.length >= 5);
  for (const file of files) t.true(included.has(`docs/examples/${file}`), `${file} is not on the page`);
  t.false(/\.\.\/shared/.test(page), 'the page refers to nothing outside the repository');
  const readme = await readFile(`${ROOT}README.md`, 'utf8');
  t.regex(readme, /docs\/client-developers\.md/);
});

test('recipe 1: a confidential web app with openid-client signs in, reads userinfo and the API, refreshes', async (t) => {
  const port = await freePort();
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  const registered = await registerApproved({
    name: 'Web app',
    clientType: 'confidential',
    redirectUris: [redirectUri],
    scopes: ['openid', 'profile', 'email', 'PROFILE_READ'],
  });
  t.is(typeof registered.secret, 'string');
  const settings: webApp.WebAppSettings = {
    issuer: system.config.appUrl,
    apiBase: system.url,
    clientId: registered.id,
    clientSecret: registered.secret!,
    redirectUri,
    scope: 'openid profile email PROFILE_READ',
  };
  const config = await webApp.discover(settings);
  const server: Server = webApp.createWebApp(config, settings);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const app = `http://127.0.0.1:${port}`;

  // The user's browser: the app's /login, the authorization server's pages, back to the app.
  const login = await fetch(`${app}/login`, { redirect: 'manual' });
  t.is(login.status, 302);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const { outcome } = await authorizeInBrowser(system.url, login.headers.get('location')!, { user });
  if (outcome.kind !== 'redirect') throw new Error(`the flow stopped at a page: ${outcome.html}`);
  t.is(`${outcome.url.origin}${outcome.url.pathname}`, redirectUri);
  const back = await fetch(outcome.url, { headers: { cookie }, redirect: 'manual' });
  t.is(back.status, 302, await back.clone().text());
  const home = await fetch(`${app}/`, { headers: { cookie } });
  t.is(home.status, 200);
  const shown = (await home.json()) as { profile: Record<string, unknown>; me: { data: { id: number } } };
  t.is(shown.profile.sub, String(user.id));
  t.is(shown.profile.email, user.email);
  t.is(shown.me.data.id, user.id);

  // The functions alone, with the access token made to look expired: accessToken refreshes.
  const { url, pending } = await webApp.startSignIn(config, settings);
  t.is(url.searchParams.get('code_challenge_method'), 'S256');
  const again = await authorizeInBrowser(system.url, url, { user });
  if (again.outcome.kind !== 'redirect') throw new Error('the flow stopped at a page');
  const signedIn = await webApp.finishSignIn(config, pending, again.outcome.url);
  t.is(signedIn.sub, String(user.id));
  const first = { ...signedIn };
  signedIn.expiresAt = 0;
  const me = (await webApp.callApi(config, settings, signedIn, '/v2/me')) as { data: { id: number } };
  t.is(me.data.id, user.id);
  t.not(signedIn.accessToken, first.accessToken);
  t.not(signedIn.refreshToken, first.refreshToken);
  t.true(signedIn.expiresAt > Date.now() + 25 * 60_000);
});

test('recipe 2: a browser app (public client, PKCE) with oauth4webapi; CORS from its origin', async (t) => {
  const origin = 'https://calendar-spa.example.test';
  const registered = await registerApproved({
    name: 'Browser app',
    clientType: 'public',
    redirectUris: [`${origin}/callback`],
    scopes: ['PROFILE_READ'],
  });
  t.is(registered.secret, null);
  const settings: browserApp.SpaSettings = {
    issuer: system.config.appUrl,
    apiBase: system.url,
    clientId: registered.id,
    redirectUri: `${origin}/callback`,
    scope: 'PROFILE_READ',
  };
  const values = new Map<string, string>();
  const sessionStorage: browserApp.PendingStore = {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => void values.set(key, value),
    removeItem: (key) => void values.delete(key),
  };
  const as = await browserApp.discover(settings);
  const url = await browserApp.beginSignIn(as, settings, sessionStorage);
  const { outcome } = await authorizeInBrowser(system.url, url, { user });
  if (outcome.kind !== 'redirect') throw new Error(`the flow stopped at a page: ${outcome.html}`);
  const tokens = await browserApp.completeSignIn(as, settings, sessionStorage, outcome.url);
  t.is(values.size, 0, 'the verifier is gone once used');
  const me = await browserApp.apiFetch(as, settings, tokens, '/v2/me');
  t.is(me.status, 200);
  t.is(((await me.json()) as { data: { id: number } }).data.id, user.id);

  const spent = tokens.refreshToken;
  tokens.expiresAt = 0;
  const after = await browserApp.apiFetch(as, settings, tokens, '/v2/me');
  t.is(after.status, 200);
  t.not(tokens.refreshToken, spent, 'the refresh token rotated');

  // What the browser does before those cross-origin POSTs and GETs.
  for (const path of ['/v2/auth/oauth2/token', '/v2/me']) {
    const preflight = await fetch(`${system.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': path === '/v2/me' ? 'GET' : 'POST',
        'access-control-request-headers': path === '/v2/me' ? 'authorization' : 'content-type',
      },
    });
    t.is(preflight.status, 204, path);
    t.is(preflight.headers.get('access-control-allow-origin'), '*', path);
  }

  // Another user says no (the first one's consent is remembered): completeSignIn throws the error.
  const denied = await authorizeInBrowser(
    system.url,
    await browserApp.beginSignIn(as, settings, sessionStorage),
    { user: await insertUser(knex()), decision: 'deny' },
  );
  if (denied.outcome.kind !== 'redirect') throw new Error('no redirect after deny');
  const error = await t.throwsAsync(
    browserApp.completeSignIn(as, settings, sessionStorage, denied.outcome.url),
  );
  t.true(error instanceof oauth.AuthorizationResponseError, String(error));
  t.is((error as oauth.AuthorizationResponseError).error, 'access_denied');
});

test('recipe 3: a native app on a loopback port it picked, registered as http://127.0.0.1/callback', async (t) => {
  const registered = await registerApproved({
    name: 'Desktop app',
    clientType: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes: ['openid', 'PROFILE_READ'],
  });
  let redirectUri = '';
  const tokens = await signInFromNativeApp(
    { issuer: system.config.appUrl, clientId: registered.id, scope: 'openid PROFILE_READ' },
    // The system browser: the server's pages, then the redirect to the app's listener.
    async (url) => {
      redirectUri = url.searchParams.get('redirect_uri')!;
      const { outcome } = await authorizeInBrowser(system.url, url, { user });
      if (outcome.kind !== 'redirect') throw new Error(`the flow stopped at a page: ${outcome.html}`);
      const page = await fetch(outcome.url);
      t.regex(await page.text(), /You can close this window/);
    },
    20_000,
  );
  t.regex(redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  t.not(new URL(redirectUri).port, '');
  t.is(tokens.scope, 'openid PROFILE_READ');
  t.truthy(tokens.id_token);
  const me = await call('GET', '/v2/me', { token: tokens.access_token });
  t.is(me.status, 200);
});

test('recipe 4: a resource server checks tokens by introspection, with oauth4webapi and with fetch', async (t) => {
  const credentials = await registerResourceServer(system.url, admin.apiKey, 'Reports service');
  t.regex(credentials.id, /^rs_/);
  const registered = await registerApproved({
    name: 'Reporting app',
    clientType: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes: ['BOOKING_READ'],
  });
  const tokens = await signInFromNativeApp(
    { issuer: system.config.appUrl, clientId: registered.id, scope: 'BOOKING_READ' },
    async (url) => {
      const { outcome } = await authorizeInBrowser(system.url, url, { user });
      if (outcome.kind !== 'redirect') throw new Error('the flow stopped at a page');
      await (await fetch(outcome.url)).text();
    },
    20_000,
  );
  const issuer = system.config.appUrl;
  for (const introspect of [introspectWithOauth4webapi, introspectWithFetch]) {
    const answer = await introspect(issuer, credentials, tokens.access_token);
    t.like(answer, {
      active: true,
      sub: String(user.id),
      client_id: registered.id,
      scope: 'BOOKING_READ',
      token_type: 'bearer',
    });
    const check = (token: string) => introspect(issuer, credentials, token);
    t.like(await checkBearer(check, `Bearer ${tokens.access_token}`, 'BOOKING_READ'), {
      ok: true,
      userId: user.id,
      clientId: registered.id,
    });
    t.like(await checkBearer(check, `Bearer ${tokens.access_token}`, 'BOOKING_WRITE'), {
      ok: false,
      status: 403,
    });
    t.like(await checkBearer(check, `Bearer ${tokens.refresh_token}`, 'BOOKING_READ'), {
      ok: false,
      status: 401,
    });
    t.like(await checkBearer(check, 'Bearer not-a-token', 'BOOKING_READ'), { ok: false, status: 401 });
    t.like(await checkBearer(check, undefined, 'BOOKING_READ'), { ok: false, status: 401 });
  }
  const wrong = { id: credentials.id, secret: 'wrong' };
  await t.throwsAsync(introspectWithFetch(issuer, wrong, tokens.access_token), { message: /401/ });
});
