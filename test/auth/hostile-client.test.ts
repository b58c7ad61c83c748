import { disableAccount } from '@sched/accounts/disable';
import { createPasswordResetLink, resetPassword } from '@sched/accounts/password-reset';
import { suspendClient } from '@sched/clients/suspend';
import type { Runtime } from '@sched/runtime/runtime';
import test, { type ExecutionContext } from 'ava';
import { insertClient, insertUser, type TestClient, type TestUser } from '../support/factories.ts';
import {
  authorizeInBrowser,
  authorizeUrl,
  clientCredentials,
  FlowBrowser,
  obtainCode,
  pkcePair,
  tokenRequest,
} from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

// An attacker with their own approved clients and account, and a victim who follows links: what
// an authorization code left in flight, a replayed session cookie or an unregistered redirect URI
// must not buy them (RFC 9700 section 4; docs/security.md).

const world = setUpWorld(test, {
  clients: {
    app: { redirectUris: ['https://app.example.com/callback'], scopes: ['PROFILE_READ', 'BOOKING_READ'] },
    other: { scopes: ['PROFILE_READ'] },
    spa: { type: 'public', scopes: ['PROFILE_READ'] },
  },
});
const { system, call, knex } = world;
const runtime = () => ({ stores: system.stores, config: system.config }) as unknown as Runtime;

/** A code for `user` and `client` (PKCE), not yet exchanged. */
async function codeFor(client: TestClient, user: TestUser) {
  const pkce = pkcePair();
  const { code, browser } = await obtainCode(
    system.url,
    {
      client_id: client.client.id,
      redirect_uri: client.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
      code_challenge: pkce.challenge,
    },
    { user },
  );
  const exchange = (credentials: Record<string, string> = clientCredentials(client)) =>
    tokenRequest(system.url, {
      ...credentials,
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: pkce.verifier,
    });
  return { code, browser, exchange };
}

const CODE_REFUSED = { error: 'invalid_grant', error_description: 'code_invalid_or_expired' };

// --- redirect_uri: exact matching, no open redirector ------------------------------------------

for (const [variant, uri] of [
  ['a dot-dot segment', 'https://app.example.com/callback/../x'],
  ['an encoded dot-dot segment', 'https://app.example.com/callback/%2e%2e/x'],
  ['an encoded slash', 'https://app.example.com/callback%2F..%2Fx'],
  ['the registered host as a subdomain of another', 'https://app.example.com.evil.com/callback'],
  ['the registered host as userinfo', 'https://app.example.com@evil.com/callback'],
  ['a backslash', 'https://app.example.com\\@evil.com/callback'],
  ['a trailing dot on the host', 'https://app.example.com./callback'],
] as const) {
  test(`redirect_uri ${variant} is refused on a page, never followed`, async (t) => {
    const response = await fetch(
      authorizeUrl(system.url, {
        client_id: world.clients.app.client.id,
        redirect_uri: uri,
        scope: 'PROFILE_READ',
        state: 's',
      }),
      { redirect: 'manual' },
    );
    t.is(response.status, 400);
    t.is(response.headers.get('location'), null);
    t.regex(await response.text(), /not one of the addresses registered/);
  });
}

for (const [title, extra] of [
  ['an unknown scope', { scope: 'NOPE' }],
  ['a scope not enabled on the client', { scope: 'BOOKING_WRITE' }],
  ['prompt=none', { prompt: 'none' }],
  ['response_type=token', { response_type: 'token' }],
  ['an unknown resource', { resource: 'https://evil.example.com/' }],
] as const) {
  test(`${title} with an unregistered redirect_uri: an error page, no redirect to it`, async (t) => {
    const response = await fetch(
      authorizeUrl(system.url, {
        client_id: world.clients.app.client.id,
        redirect_uri: 'https://evil.example.com/callback',
        scope: 'PROFILE_READ',
        state: 's',
        ...extra,
      }),
      { redirect: 'manual' },
    );
    t.is(response.status, 400);
    t.is(response.headers.get('location'), null);
  });
}

// --- consent -------------------------------------------------------------------------------------

test('prompt=none without prior consent: consent_required to the registered URI with state and iss', async (t) => {
  const victim = await insertUser(knex());
  const browser = new FlowBrowser(system.url);
  // A signed-in victim (consent given to another client only).
  await obtainCode(
    system.url,
    {
      client_id: world.clients.other.client.id,
      redirect_uri: world.clients.other.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
    },
    { user: victim, browser },
  );
  const silent = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ',
      state: 'quiet',
      prompt: 'none',
    }),
    { browser },
  );
  t.false(silent.consentShown);
  if (silent.outcome.kind !== 'redirect') return t.fail(silent.outcome.html);
  const url = silent.outcome.url;
  t.is(`${url.origin}${url.pathname}`, world.clients.app.redirectUri);
  t.is(url.searchParams.get('error'), 'consent_required');
  t.is(url.searchParams.get('code'), null);
  t.is(url.searchParams.get('state'), 'quiet');
  t.is(url.searchParams.get('iss'), system.config.appUrl);
});

test('prompt=none with no session: login_required, no code', async (t) => {
  const response = await fetch(
    authorizeUrl(system.url, {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
      prompt: 'none',
    }),
    { redirect: 'manual' },
  );
  t.is(response.status, 303);
  const url = new URL(response.headers.get('location')!);
  t.is(`${url.origin}${url.pathname}`, world.clients.app.redirectUri);
  t.is(url.searchParams.get('error'), 'login_required');
  t.is(url.searchParams.get('code'), null);
});

test('consent given to client A is not reused for client B, nor for a scope added later', async (t) => {
  const victim = await insertUser(knex());
  const first = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, {
      client_id: world.clients.other.client.id,
      redirect_uri: world.clients.other.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
    }),
    { user: victim },
  );
  t.true(first.consentShown);
  const toB = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
    }),
    { browser: first.browser },
  );
  t.true(toB.consentShown, 'another client asks again');
  const wider = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ BOOKING_READ',
      state: 's',
      prompt: 'none',
    }),
    { browser: first.browser },
  );
  t.false(wider.consentShown);
  t.true(
    wider.outcome.kind === 'redirect' && wider.outcome.url.searchParams.get('error') === 'consent_required',
  );
});

// --- codes in flight ------------------------------------------------------------------------------

test('a code issued before the user disconnects the app is refused after it', async (t) => {
  const victim = await insertUser(knex());
  const flight = await codeFor(world.clients.app, victim);
  const removed = await call('DELETE', `/v2/me/connected-apps/${world.clients.app.client.id}`, {
    token: victim.apiKey,
  });
  t.is(removed.status, 204);
  const exchanged = await flight.exchange();
  t.is(exchanged.status, 400, JSON.stringify(exchanged.body));
  t.deepEqual(exchanged.body, CODE_REFUSED);
});

test('a code issued before a password reset is refused after it', async (t) => {
  const victim = await insertUser(knex());
  const flight = await codeFor(world.clients.app, victim);
  const link = await createPasswordResetLink(knex(), system.url, victim.id);
  const token = new URL(link).searchParams.get('token')!;
  t.truthy(await resetPassword(runtime() as never, token, 'a brand new passphrase'));
  const exchanged = await flight.exchange();
  t.is(exchanged.status, 400, JSON.stringify(exchanged.body));
  t.deepEqual(exchanged.body, CODE_REFUSED);
});

test('a code issued before the account is disabled is refused after it', async (t) => {
  const victim = await insertUser(knex());
  const flight = await codeFor(world.clients.spa, victim);
  t.truthy(await disableAccount({ stores: system.stores }, victim.id));
  const exchanged = await flight.exchange();
  t.is(exchanged.status, 400, JSON.stringify(exchanged.body));
  t.deepEqual(exchanged.body, CODE_REFUSED);
});

test('a code issued before the client was suspended is refused, also once it is approved again', async (t) => {
  const owner = await insertUser(knex());
  const client = await insertClient(knex(), { ownerUserId: owner.id, scopes: ['PROFILE_READ'] });
  const victim = await insertUser(knex());
  const flight = await codeFor(client, victim);
  await suspendClient(
    runtime(),
    { userId: world.admin.id, serviceAdmin: true },
    client.client.id,
    'Reported',
  );
  const whilePending = await flight.exchange();
  t.is(whilePending.status, 401);
  t.is(whilePending.body.error, 'unauthorized_client');
  const approved = await call('POST', `/v2/admin/oauth-clients/${client.client.id}/approve`, {
    token: world.admin.apiKey,
  });
  t.is(approved.status, 200, JSON.stringify(approved.body));
  const afterApproval = await flight.exchange();
  t.is(afterApproval.status, 400, JSON.stringify(afterApproval.body));
  t.deepEqual(afterApproval.body, CODE_REFUSED);
});

test("a stolen code with the attacker's own client and verifier is refused and the victim's redemption still works", async (t) => {
  const victim = await insertUser(knex());
  const flight = await codeFor(world.clients.app, victim);
  const mine = pkcePair();
  const injected = await tokenRequest(system.url, {
    ...clientCredentials(world.clients.other),
    grant_type: 'authorization_code',
    code: flight.code,
    redirect_uri: world.clients.other.redirectUri,
    code_verifier: mine.verifier,
  });
  t.is(injected.status, 400);
  t.is(injected.body.error, 'invalid_grant');
  const wrongVerifier = await tokenRequest(system.url, {
    ...clientCredentials(world.clients.app),
    grant_type: 'authorization_code',
    code: flight.code,
    redirect_uri: world.clients.app.redirectUri,
    code_verifier: mine.verifier,
  });
  t.deepEqual(wrongVerifier.body, { error: 'invalid_grant', error_description: 'pkce_verification_failed' });
});

test('after a secret rotation the old secret cannot redeem a code; the new one can', async (t) => {
  const owner = await insertUser(knex());
  const client = await insertClient(knex(), { ownerUserId: owner.id, scopes: ['PROFILE_READ'] });
  const victim = await insertUser(knex());
  const flight = await codeFor(client, victim);
  const path = `/v2/oauth-clients/${client.client.id}/secrets`;
  const fresh = await call('POST', path, { token: owner.apiKey });
  t.is(fresh.status, 201, JSON.stringify(fresh.body));
  const listed = await call('GET', path, { token: owner.apiKey });
  const old = (listed.body.data as Array<{ id: string }>).find((s) => s.id !== fresh.body.data.id)!;
  t.is((await call('DELETE', `${path}/${old.id}`, { token: owner.apiKey })).status, 200);
  const withOld = await flight.exchange();
  t.is(withOld.status, 401);
  t.is(withOld.body.error, 'invalid_client');
  const withNew = await flight.exchange({
    client_id: client.client.id,
    client_secret: fresh.body.data.secret,
  });
  t.is(withNew.status, 200, JSON.stringify(withNew.body));
});

// --- sessions ---------------------------------------------------------------------------------

function cookieNamed(browser: FlowBrowser, name: string): string | undefined {
  return [...browser.jar.cookies.values()].find((c) => c.name === name)?.value;
}

async function assertSignedOut(t: ExecutionContext, cookies: string) {
  const response = await fetch(`${system.url}/auth/settings`, {
    headers: { cookie: cookies },
    redirect: 'manual',
  });
  t.is(response.status, 303, 'the replayed cookie no longer signs in');
  t.regex(response.headers.get('location') ?? '', /sign-in/);
}

test('sign-out ends the session on the server: the old cookie replayed afterwards is signed out', async (t) => {
  const victim = await insertUser(knex());
  const { browser } = await obtainCode(
    system.url,
    {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
    },
    { user: victim },
  );
  const all = [...browser.jar.cookies.values()].map((c) => `${c.name}=${c.value}`).join('; ');
  t.truthy(cookieNamed(browser, 'auth.session'));
  const signedIn = await fetch(`${system.url}/auth/settings`, {
    headers: { cookie: all },
    redirect: 'manual',
  });
  t.is(signedIn.status, 200, 'the copied cookies sign in before the sign-out');
  const account = await browser.open('/auth/settings');
  if (account.kind !== 'page') return t.fail();
  const out = await browser.submit(account, '/auth/settings/sign-out', {});
  t.is(out.kind, 'page');
  await assertSignedOut(t, all);
  // Nor can the replayed cookie authorize silently.
  const silent = await fetch(
    authorizeUrl(system.url, {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
      prompt: 'none',
    }),
    { headers: { cookie: all }, redirect: 'manual' },
  );
  t.is(silent.status, 303);
  t.is(new URL(silent.headers.get('location')!).searchParams.get('error'), 'login_required');
});

test('session fixation: a session cookie held before sign-in is not the one after it', async (t) => {
  const attacker = await insertUser(knex());
  const victim = await insertUser(knex());
  // The attacker signs in, keeps the session cookie and plants it in the victim's browser.
  const mine = await obtainCode(
    system.url,
    {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
    },
    { user: attacker },
  );
  const planted = [...mine.browser.jar.cookies.values()].filter((c) => c.name.startsWith('auth.session'));
  t.true(planted.length > 0);
  const browser = new FlowBrowser(system.url);
  browser.jar.store(planted.map((c) => `${c.name}=${c.value}; path=${c.path}`));
  const plantedHeader = planted.map((c) => `${c.name}=${c.value}`).join('; ');
  const plantedId = cookieNamed(mine.browser, 'auth.session');
  // The victim signs in as themselves (prompt=login) in that browser.
  await obtainCode(
    system.url,
    {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
      prompt: 'login',
    },
    { user: victim, browser },
  );
  const after = cookieNamed(browser, 'auth.session');
  t.truthy(after);
  t.not(after, plantedId, 'a new session id at sign-in');
  // The attacker's copy is not the victim's session.
  const theirs = await fetch(`${system.url}/auth/settings`, {
    headers: { cookie: plantedHeader },
    redirect: 'manual',
  });
  if (theirs.status === 200) t.false((await theirs.text()).includes(victim.email));
  else t.is(theirs.status, 303);
});

// --- replays reach the whole grant ----------------------------------------------------------------

test('a replayed code revokes the tokens the first redemption led to, after a refresh too', async (t) => {
  const victim = await insertUser(knex());
  const flight = await codeFor(world.clients.app, victim);
  const first = await flight.exchange();
  t.is(first.status, 200);
  const refreshed = await tokenRequest(system.url, {
    ...clientCredentials(world.clients.app),
    grant_type: 'refresh_token',
    refresh_token: String(first.body.refresh_token),
  });
  t.is(refreshed.status, 200);
  t.is((await call('GET', '/v2/me', { token: String(refreshed.body.access_token) })).status, 200);
  // The attacker replays the code they intercepted.
  t.deepEqual((await flight.exchange()).body, CODE_REFUSED);
  t.is((await call('GET', '/v2/me', { token: String(refreshed.body.access_token) })).status, 401);
  const again = await tokenRequest(system.url, {
    ...clientCredentials(world.clients.app),
    grant_type: 'refresh_token',
    refresh_token: String(refreshed.body.refresh_token),
  });
  t.deepEqual(again.body, { error: 'invalid_grant', error_description: 'invalid_refresh_token' });
});

test('a native client: the code exchange repeats the loopback port of the authorization', async (t) => {
  const native = await insertClient(knex(), {
    type: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes: ['PROFILE_READ'],
  });
  const victim = await insertUser(knex());
  const pkce = pkcePair();
  const { code } = await obtainCode(
    system.url,
    {
      client_id: native.client.id,
      redirect_uri: 'http://127.0.0.1:50111/callback',
      scope: 'PROFILE_READ',
      state: 's',
      code_challenge: pkce.challenge,
    },
    { user: victim },
  );
  // Another local listener (another port) cannot redeem it.
  const elsewhere = await tokenRequest(system.url, {
    client_id: native.client.id,
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1:50112/callback',
    code_verifier: pkce.verifier,
  });
  t.deepEqual(elsewhere.body, { error: 'invalid_grant', error_description: 'redirect_uri_mismatch' });
});

// --- request objects and framing ----------------------------------------------------------------

for (const [name, value, error] of [
  [
    'request',
    'eyJhbGciOiJub25lIn0.eyJyZWRpcmVjdF91cmkiOiJodHRwczovL2V2aWwuZXhhbXBsZS5jb20vY2IifQ.',
    'request_not_supported',
  ],
  ['request_uri', 'https://evil.example.com/request.jwt', 'request_uri_not_supported'],
] as const) {
  test(`a ${name} parameter cannot carry another redirect_uri: ${error} to the registered one`, async (t) => {
    const response = await fetch(
      authorizeUrl(system.url, {
        client_id: world.clients.app.client.id,
        redirect_uri: world.clients.app.redirectUri,
        scope: 'PROFILE_READ',
        state: 's',
        [name]: value,
      }),
      { redirect: 'manual' },
    );
    t.is(response.status, 303);
    const url = new URL(response.headers.get('location')!);
    t.is(`${url.origin}${url.pathname}`, world.clients.app.redirectUri);
    t.is(url.searchParams.get('error'), error);
    t.is(url.searchParams.get('code'), null);
  });
}

test('no page can be framed by another site: authorization, error, sign-in, reset, settings, admin, home, 404', async (t) => {
  const browser = new FlowBrowser(system.url);
  const interaction = await browser.request(
    authorizeUrl(system.url, {
      client_id: world.clients.app.client.id,
      redirect_uri: world.clients.app.redirectUri,
      scope: 'PROFILE_READ',
      state: 's',
    }),
  );
  const paths = [
    interaction.headers.get('location')!,
    '/auth/oauth2/authorize?client_id=nobody',
    '/auth/settings/sign-in',
    '/auth/settings/sign-up',
    '/auth/forgot-password',
    '/auth/settings',
    '/auth/admin',
    '/',
    '/v2/docs',
    '/auth/no-such-page',
    '/auth/interaction/not-a-real-uid',
  ];
  for (const path of paths) {
    const response = await browser.request(path);
    await response.arrayBuffer();
    t.is(response.headers.get('x-frame-options'), 'DENY', path);
    t.regex(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, path);
  }
});

// --- audience ------------------------------------------------------------------------------------

test('a code or refresh token cannot switch its audience between the API and /mcp', async (t) => {
  const native = await insertClient(knex(), {
    type: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes: ['PROFILE_READ'],
  });
  const victim = await insertUser(knex());
  const mcp = `${system.url}/mcp`;
  const redirectUri = 'http://127.0.0.1:50120/callback';
  const cases: Array<[string | undefined, string | undefined, string | undefined]> = [
    // authorization's resource, the code exchange's, the refresh's
    [undefined, mcp, undefined],
    [system.url, mcp, undefined],
    [mcp, system.url, undefined],
    [undefined, undefined, mcp],
    [system.url, undefined, mcp],
    [mcp, undefined, system.url],
  ];
  for (const [authorized, exchanged, refreshed] of cases) {
    const label = JSON.stringify({ authorized, exchanged, refreshed });
    const pkce = pkcePair();
    const { code } = await obtainCode(
      system.url,
      {
        client_id: native.client.id,
        redirect_uri: redirectUri,
        scope: 'PROFILE_READ',
        state: 's',
        code_challenge: pkce.challenge,
        ...(authorized ? { resource: authorized } : {}),
      },
      { user: victim },
    );
    const exchange = await tokenRequest(system.url, {
      client_id: native.client.id,
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: pkce.verifier,
      ...(exchanged ? { resource: exchanged } : {}),
    });
    if (exchanged) {
      t.is(exchange.body.error, 'invalid_target', label);
      continue;
    }
    t.is(exchange.status, 200, label);
    const refresh = await tokenRequest(system.url, {
      client_id: native.client.id,
      grant_type: 'refresh_token',
      refresh_token: String(exchange.body.refresh_token),
      ...(refreshed ? { resource: refreshed } : {}),
    });
    t.is(refresh.body.error, 'invalid_target', label);
  }
});

// --- identity claims ---------------------------------------------------------------------------

test('an account whose address nobody verified is email_verified false in the ID token and userinfo', async (t) => {
  const oidc = await insertClient(knex(), { scopes: ['openid', 'email'] });
  // A squatter signed up with someone else's address and never opened the verification link.
  const squatter = await insertUser(knex());
  await knex()('users').where({ id: squatter.id }).update({ email_verified_at: null });
  const { code } = await obtainCode(
    system.url,
    { client_id: oidc.client.id, redirect_uri: oidc.redirectUri, scope: 'openid email', state: 's' },
    { user: squatter },
  );
  const tokens = await tokenRequest(system.url, {
    ...clientCredentials(oidc),
    grant_type: 'authorization_code',
    code,
    redirect_uri: oidc.redirectUri,
  });
  t.is(tokens.status, 200, JSON.stringify(tokens.body));
  const claims = JSON.parse(Buffer.from(String(tokens.body.id_token).split('.')[1]!, 'base64url').toString());
  t.is(claims.email, squatter.email);
  t.is(claims.email_verified, false);
  const info = await fetch(`${system.url}/v2/auth/oauth2/userinfo`, {
    headers: { authorization: `Bearer ${tokens.body.access_token}` },
  });
  t.is(info.status, 200);
  t.like(await info.json(), { email: squatter.email, email_verified: false });
});

test('the authorization endpoint takes GET only: a POST cannot skip the checks made on GET', async (t) => {
  const pending = await insertClient(knex(), { status: 'PENDING' });
  for (const [client, extra] of [
    [world.clients.app, {}],
    [world.clients.app, { scope: 'NOPE' }],
    [world.clients.app, { redirect_uri: 'https://evil.example.com/callback' }],
    [pending, {}],
  ] as const) {
    const response = await fetch(`${system.url}/auth/oauth2/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: client.client.id,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        scope: 'PROFILE_READ',
        state: 's',
        ...extra,
      }),
      redirect: 'manual',
    });
    await response.arrayBuffer();
    t.is(response.status, 404, JSON.stringify(extra));
    t.is(response.headers.get('location'), null);
  }
});
