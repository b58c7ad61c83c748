import { createOrganization } from '@sched/db/queries/organizations';
import test, { type ExecutionContext } from 'ava';
import {
  authorizeInBrowser,
  authorizeUrl,
  clientCredentials,
  pkcePair,
  tokenRequest,
} from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { insertClient, insertUser, type TestClient } from '../support/factories.ts';

// Every authorization-page error (docs/client-developers.md "Errors a client sees"): shown on the
// page (HTTP 400, never a redirect) or sent back to the client by a 303 with error,
// error_description, state, iss.

const {
  system,
  user,
  clients: { app, legacy, spa },
} = setUpWorld(test, {
  clients: {
    app: { scopes: ['PROFILE_READ', 'ORG_BOOKING_READ'], redirectUris: ['https://app.example.com/callback'] },
    legacy: { scopes: ['READ_BOOKING'], redirectUris: ['https://legacy.example.com/cb'] },
    spa: { type: 'public', scopes: ['PROFILE_READ'], redirectUris: ['http://127.0.0.1:9/spa/callback'] },
  },
});

test.before(async () => {
  // ORG_/TEAM_ scopes need an organization role to be granted (insufficient-permissions.test.ts).
  await createOrganization(system.stores.db.knex, system.stores.tokenStore, {
    name: 'Acme',
    slug: `acme-${Date.now()}`,
    ownerUserId: user.user.id,
  });
});

const get = (params: Record<string, string>) =>
  fetch(authorizeUrl(system.url, params), { redirect: 'manual' });

const base = (client: TestClient, extra: Record<string, string> = {}) => ({
  client_id: client.client.id,
  redirect_uri: client.redirectUri,
  state: 'st-123',
  scope: client.client.scopes.join(' ') || 'READ_BOOKING',
  ...extra,
});

async function isPageError(t: ExecutionContext, response: Response, text: string | RegExp) {
  t.is(response.status, 400);
  t.is(response.headers.get('location'), null, 'never a redirect');
  t.regex(response.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  t.is(response.headers.get('referrer-policy'), 'no-referrer');
  const html = await response.text();
  if (typeof text === 'string') t.true(html.includes(text), html);
  else t.regex(html, text);
}

function isRedirectError(
  t: ExecutionContext,
  response: Response,
  redirectUri: string,
  error: string,
  description: string,
) {
  t.is(response.status, 303);
  const location = new URL(response.headers.get('location') ?? 'about:blank');
  t.is(`${location.origin}${location.pathname}`, redirectUri);
  t.is(location.searchParams.get('error'), error);
  t.is(location.searchParams.get('error_description'), description);
  t.is(location.searchParams.get('state'), 'st-123');
  t.is(location.searchParams.get('iss'), system.config.appUrl);
  t.is(location.searchParams.get('code'), null);
}

// --- errors shown on the page ------------------------------------------------------------------

test('unknown client_id: error page, no redirect', async (t) => {
  await isPageError(
    t,
    await get(base(app, { client_id: 'no-such-client' })),
    'No application is registered with this client_id.',
  );
});

test('missing client_id: error page', async (t) => {
  const { client_id: _id, ...params } = base(app);
  await isPageError(t, await get(params), 'client_id is missing');
});

test('pending client: error page', async (t) => {
  const pending = await insertClient(system.stores.db.knex, { status: 'PENDING' });
  await isPageError(t, await get(base(pending)), 'waiting for review');
});

test('rejected client: error page', async (t) => {
  const rejected = await insertClient(system.stores.db.knex, { status: 'REJECTED' });
  await isPageError(t, await get(base(rejected)), 'rejected during review');
});

test('redirect_uri not registered: error page', async (t) => {
  await isPageError(
    t,
    await get(base(app, { redirect_uri: 'https://evil.example.com/callback' })),
    /not one of the addresses registered/,
  );
});

test('missing redirect_uri: error page', async (t) => {
  const { redirect_uri: _uri, ...params } = base(app);
  await isPageError(t, await get(params), /not one of the addresses registered/);
});

for (const [variant, uri] of [
  ['a longer path (prefix match)', 'https://app.example.com/callback/more'],
  ['a shorter path (prefix of the registered one)', 'https://app.example.com/call'],
  ['different case', 'https://app.example.com/Callback'],
  ['different host case', 'https://APP.example.com/callback'],
  ['a trailing slash', 'https://app.example.com/callback/'],
  ['an extra query', 'https://app.example.com/callback?next=/admin'],
  ['a fragment', 'https://app.example.com/callback#x'],
  ['another scheme', 'http://app.example.com/callback'],
  ['an explicit port', 'https://app.example.com:443/callback'],
] as const) {
  test(`redirect_uri is compared exactly: ${variant} is refused on the page`, async (t) => {
    await isPageError(t, await get(base(app, { redirect_uri: uri })), /not one of the addresses registered/);
  });
}

test('missing scope for a non-legacy client: error page with the fixed message', async (t) => {
  const { scope: _scope, ...params } = base(app);
  await isPageError(t, await get(params), 'scope parameter is required for this OAuth client');
});

test('empty scope for a non-legacy client: error page with the fixed message', async (t) => {
  await isPageError(
    t,
    await get(base(app, { scope: ' ' })),
    'scope parameter is required for this OAuth client',
  );
});

test('missing code_challenge for a public client: error page', async (t) => {
  await isPageError(t, await get(base(spa)), 'code_challenge is required');
});

test('a repeated parameter is refused on the page', async (t) => {
  const url = authorizeUrl(system.url, base(app));
  url.searchParams.append('redirect_uri', 'https://evil.example.com/cb');
  await isPageError(t, await fetch(url, { redirect: 'manual' }), 'must not be provided twice');
});

test('page errors win over redirect errors (unknown client with an unknown scope)', async (t) => {
  await isPageError(t, await get(base(app, { client_id: 'nobody', scope: 'NOPE' })), 'No application');
});

// --- errors sent back to the client ------------------------------------------------------------

test('unknown scope value: 303 invalid_scope', async (t) => {
  const response = await get(base(app, { scope: 'PROFILE_READ NOT_A_SCOPE' }));
  isRedirectError(t, response, app.redirectUri, 'invalid_scope', 'Requested scope is not a recognized scope');
});

test('openid not registered on the client: 303 invalid_request (OIDC scopes are known)', async (t) => {
  const response = await get(base(app, { scope: 'openid PROFILE_READ' }));
  isRedirectError(
    t,
    response,
    app.redirectUri,
    'invalid_request',
    "Requested scope exceeds the client's registered scopes",
  );
});

test('a legacy client cannot ask for openid it has not registered: 303 invalid_request', async (t) => {
  const response = await get(base(legacy, { scope: 'openid' }));
  isRedirectError(
    t,
    response,
    legacy.redirectUri,
    'invalid_request',
    "Requested scope exceeds the client's registered scopes",
  );
});

test('uppercase OPENID is not an OIDC scope: 303 invalid_scope', async (t) => {
  const response = await get(base(app, { scope: 'OPENID PROFILE_READ' }));
  isRedirectError(t, response, app.redirectUri, 'invalid_scope', 'Requested scope is not a recognized scope');
});

test('unknown scope value for a legacy client: 303 invalid_scope as well', async (t) => {
  const response = await get(base(legacy, { scope: 'READ_BOOKING MADE_UP' }));
  isRedirectError(
    t,
    response,
    legacy.redirectUri,
    'invalid_scope',
    'Requested scope is not a recognized scope',
  );
});

test('scope not enabled on the client: 303 invalid_request', async (t) => {
  const response = await get(base(app, { scope: 'PROFILE_READ BOOKING_WRITE' }));
  isRedirectError(
    t,
    response,
    app.redirectUri,
    'invalid_request',
    "Requested scope exceeds the client's registered scopes",
  );
});

test('a legacy client skips the enabled-scope check: the flow goes on to sign-in', async (t) => {
  const response = await get(base(legacy, { scope: 'BOOKING_READ PROFILE_READ' }));
  t.is(response.status, 303);
  t.regex(response.headers.get('location') ?? '', /^\/auth\/interaction\//);
});

test('a registered ORG_ scope covers a request for the matching TEAM_ scope', async (t) => {
  const response = await get(base(app, { scope: 'TEAM_BOOKING_READ' }));
  t.is(response.status, 303);
  t.regex(response.headers.get('location') ?? '', /^\/auth\/interaction\//);
});

test('code_challenge_method other than S256: 303 invalid_request', async (t) => {
  const response = await get(
    base(spa, { code_challenge: pkcePair().challenge, code_challenge_method: 'plain' }),
  );
  t.is(response.status, 303);
  const location = new URL(response.headers.get('location')!);
  t.is(location.searchParams.get('error'), 'invalid_request');
  t.is(location.searchParams.get('state'), 'st-123');
  t.is(location.searchParams.get('iss'), system.config.appUrl);
});

test('response_type other than code: 303 unsupported_response_type', async (t) => {
  const response = await get(base(app, { response_type: 'token' }));
  t.is(response.status, 303);
  t.is(new URL(response.headers.get('location')!).searchParams.get('error'), 'unsupported_response_type');
});

test('Deny: 303 to the redirect_uri with access_denied, state and iss', async (t) => {
  // A user of its own: no consent remembered by the other tests.
  const denier = await insertUser(system.stores.db.knex);
  const { outcome, consentShown } = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, base(app, { scope: 'PROFILE_READ' })),
    { user: denier, decision: 'deny' },
  );
  t.true(consentShown);
  t.is(outcome.kind, 'redirect');
  t.is(outcome.status, 303);
  t.is(`${outcome.url.origin}${outcome.url.pathname}`, app.redirectUri);
  t.is(outcome.url.searchParams.get('error'), 'access_denied');
  t.truthy(outcome.url.searchParams.get('error_description'), 'every redirect error carries a description');
  t.is(outcome.url.searchParams.get('state'), 'st-123');
  t.is(outcome.url.searchParams.get('iss'), system.config.appUrl);
  t.is(outcome.url.searchParams.get('code'), null);
});

// --- success -----------------------------------------------------------------------------------

test('Allow: 303 to redirect_uri?code&state&iss; comma-separated scopes and no response_type are accepted', async (t) => {
  // Its own organization owner: another test's consent to the same scopes would skip the page.
  const owner = await insertUser(system.stores.db.knex);
  await createOrganization(system.stores.db.knex, system.stores.tokenStore, {
    name: 'Allow',
    slug: `allow-${Date.now()}`,
    ownerUserId: owner.user.id,
  });
  const { outcome, consentShown } = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, base(app, { scope: 'PROFILE_READ,ORG_BOOKING_READ' })),
    { user: owner },
  );
  t.true(consentShown);
  t.is(outcome.kind, 'redirect');
  t.is(outcome.status, 303);
  t.is(`${outcome.url.origin}${outcome.url.pathname}`, app.redirectUri);
  t.truthy(outcome.url.searchParams.get('code'));
  t.is(outcome.url.searchParams.get('state'), 'st-123');
  t.is(outcome.url.searchParams.get('iss'), system.config.appUrl);
});

test('state is returned unchanged, reserved characters and all, with the code and with a redirect error', async (t) => {
  const state = 'a b+c&d=e/f?g%h#i é';
  const { outcome } = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, base(app, { scope: 'PROFILE_READ', state })),
    { user },
  );
  t.is(outcome.kind, 'redirect');
  if (outcome.kind !== 'redirect') return;
  t.truthy(outcome.url.searchParams.get('code'));
  t.is(outcome.url.searchParams.get('state'), state);
  const refused = await get(base(app, { scope: 'NOT_A_SCOPE', state }));
  t.is(refused.status, 303);
  t.is(new URL(refused.headers.get('location')!).searchParams.get('state'), state);
});

test('scope written with %20 (as the specification encodes it) is read as a space-separated list', async (t) => {
  const url = new URL('/auth/oauth2/authorize', system.url);
  url.search = [
    `client_id=${encodeURIComponent(app.client.id)}`,
    `redirect_uri=${encodeURIComponent(app.redirectUri)}`,
    'state=st-123',
    'scope=PROFILE_READ%20ORG_BOOKING_READ',
  ].join('&');
  t.true(url.href.includes('PROFILE_READ%20ORG_BOOKING_READ'));
  // The organization owner: ORG_ scopes need an organization role to be granted.
  const { outcome } = await authorizeInBrowser(system.url, url, { user });
  t.is(outcome.kind, 'redirect');
  if (outcome.kind !== 'redirect') return;
  t.is(outcome.url.searchParams.get('state'), 'st-123');
  const tokens = await tokenRequest(system.url, {
    ...clientCredentials(app),
    grant_type: 'authorization_code',
    code: outcome.url.searchParams.get('code') ?? '',
    redirect_uri: app.redirectUri,
  });
  t.is(tokens.status, 200, JSON.stringify(tokens.body));
  t.is(tokens.body.scope, 'PROFILE_READ ORG_BOOKING_READ');
});
