import { randomBytes } from 'node:crypto';
import test from 'ava';
import * as oauth from 'oauth4webapi';
import { clientCredentials, issueTokens, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';

/**
 * Token introspection (RFC 7662) at POST /v2/auth/oauth2/introspect: a confidential client sees its
 * own tokens, a resource server registered by an administrator sees any; anything unknown, expired,
 * revoked or someone else's is `{active: false}`.
 */

const { system, call, store, admin, user, clients } = setUpWorld(test, {
  clients: {
    app: { scopes: ['PROFILE_READ', 'BOOKING_READ'] },
    other: { scopes: ['PROFILE_READ'] },
    spa: { type: 'public', scopes: ['PROFILE_READ'] },
  },
});

const INTROSPECT = '/v2/auth/oauth2/introspect';
const MEMBERS = ['active', 'client_id', 'exp', 'iat', 'scope', 'sub', 'token_type'];

type Credentials = { clientId: string; secret: string };

/** Introspects with HTTP Basic (default), or with the credentials in the body (`post`), as form or JSON. */
function introspect(
  credentials: Credentials | undefined,
  params: Record<string, string>,
  options: { post?: boolean; json?: boolean } = {},
) {
  const body = { ...params };
  if (credentials && options.post) {
    body.client_id = credentials.clientId;
    body.client_secret = credentials.secret;
  }
  return tokenRequest(system.url, body, {
    path: INTROSPECT,
    ...(options.json ? { json: true } : {}),
    ...(credentials && !options.post ? { basic: credentials } : {}),
  });
}

const asClient = (name: 'app' | 'other'): Credentials => ({
  clientId: clients[name].client.id,
  secret: clients[name].secret!,
});

async function newResourceServer(name = 'Bookings API'): Promise<Credentials> {
  const made = await call('POST', '/v2/admin/resource-servers', {
    token: admin.apiKey,
    body: { name, description: 'checks tokens' },
  });
  if (made.status !== 201) throw new Error(`resource server not made: ${JSON.stringify(made.body)}`);
  return { clientId: made.body.data.id, secret: made.body.data.secret };
}

test('a client introspects its own access token: exactly the RFC 7662 members', async (t) => {
  const tokens = await issueTokens(system.url, clients.app, user);
  const response = await introspect(asClient('app'), { token: tokens.access_token });
  t.is(response.status, 200, JSON.stringify(response.body));
  t.deepEqual(Object.keys(response.body).sort(), MEMBERS);
  const body = response.body as Record<string, unknown>;
  t.is(body.active, true);
  t.is(body.scope, 'PROFILE_READ BOOKING_READ');
  t.is(body.client_id, clients.app.client.id);
  t.is(body.sub, String(user.id));
  t.is(body.token_type, 'bearer');
  t.is(typeof body.exp, 'number');
  t.is(typeof body.iat, 'number');
  t.is((body.exp as number) - (body.iat as number), 1800);
  t.true(Math.abs((body.iat as number) - Date.now() / 1000) < 120);
  t.is(response.headers.get('cache-control'), 'no-store');
  t.is(response.headers.get('pragma'), 'no-cache');
});

test('its refresh token too, with client_secret_post, as form and as JSON, whatever the hint', async (t) => {
  const tokens = await issueTokens(system.url, clients.app, user);
  for (const json of [false, true]) {
    for (const hint of [undefined, 'access_token', 'refresh_token', 'something_else']) {
      const response = await introspect(
        asClient('app'),
        { token: tokens.refresh_token, ...(hint ? { token_type_hint: hint } : {}) },
        { post: true, json },
      );
      t.is(response.status, 200, JSON.stringify(response.body));
      t.deepEqual(Object.keys(response.body).sort(), MEMBERS);
      t.like(response.body, {
        active: true,
        client_id: clients.app.client.id,
        sub: String(user.id),
        scope: 'PROFILE_READ BOOKING_READ',
        token_type: 'refresh_token',
      });
    }
  }
  const access = await introspect(asClient('app'), {
    token: tokens.access_token,
    token_type_hint: 'refresh_token',
  });
  t.like(access.body, { active: true, token_type: 'bearer' });
});

test("another client's token is inactive, the same answer as an unknown one", async (t) => {
  const tokens = await issueTokens(system.url, clients.app, user);
  for (const token of [
    tokens.access_token,
    tokens.refresh_token,
    randomBytes(32).toString('base64url'),
    'x y',
  ]) {
    const response = await introspect(asClient('other'), { token });
    t.is(response.status, 200);
    t.deepEqual(response.body, { active: false });
  }
});

test('a resource server introspects any client’s tokens; deleted, its secret stops working', async (t) => {
  const server = await newResourceServer();
  const ofApp = await issueTokens(system.url, clients.app, user);
  const ofOther = await issueTokens(system.url, clients.other, user);
  for (const [token, client, type] of [
    [ofApp.access_token, clients.app, 'bearer'],
    [ofApp.refresh_token, clients.app, 'refresh_token'],
    [ofOther.access_token, clients.other, 'bearer'],
  ] as const) {
    for (const post of [false, true]) {
      const response = await introspect(server, { token }, { post });
      t.is(response.status, 200, JSON.stringify(response.body));
      t.deepEqual(Object.keys(response.body).sort(), MEMBERS);
      t.like(response.body, {
        active: true,
        client_id: client.client.id,
        sub: String(user.id),
        token_type: type,
      });
    }
  }
  const unknown = await introspect(server, { token: randomBytes(32).toString('base64url') });
  t.deepEqual(unknown.body, { active: false });

  const deleted = await call('DELETE', `/v2/admin/resource-servers/${server.clientId}`, {
    token: admin.apiKey,
  });
  t.is(deleted.status, 204);
  const after = await introspect(server, { token: ofApp.access_token });
  t.is(after.status, 401);
  t.is(after.body.error, 'invalid_client');
});

test('revoked tokens are inactive', async (t) => {
  const server = await newResourceServer();
  const tokens = await issueTokens(system.url, clients.app, user);
  const revoked = await tokenRequest(
    system.url,
    { ...clientCredentials(clients.app), token: tokens.access_token },
    { path: '/v2/auth/oauth2/revoke' },
  );
  t.is(revoked.status, 200);
  for (const caller of [asClient('app'), server]) {
    t.deepEqual((await introspect(caller, { token: tokens.access_token })).body, { active: false });
  }
  // Revoking an access token also ends the grant's refresh tokens (services/auth/README.md).
  t.deepEqual((await introspect(server, { token: tokens.refresh_token })).body, { active: false });

  const second = await issueTokens(system.url, clients.app, user);
  await tokenRequest(
    system.url,
    { ...clientCredentials(clients.app), token: second.refresh_token, token_type_hint: 'refresh_token' },
    { path: '/v2/auth/oauth2/revoke' },
  );
  for (const token of [second.access_token, second.refresh_token]) {
    t.deepEqual((await introspect(asClient('app'), { token })).body, { active: false });
  }
});

test('after a refresh rotation the used refresh token is inactive and its successor active', async (t) => {
  const tokens = await issueTokens(system.url, clients.app, user);
  const rotated = await tokenRequest(system.url, {
    ...clientCredentials(clients.app),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.is(rotated.status, 200, JSON.stringify(rotated.body));
  t.deepEqual((await introspect(asClient('app'), { token: tokens.refresh_token })).body, { active: false });
  const successor = await introspect(asClient('app'), { token: rotated.body.refresh_token as string });
  t.like(successor.body, { active: true, token_type: 'refresh_token' });
  const access = await introspect(asClient('app'), { token: rotated.body.access_token as string });
  t.like(access.body, { active: true, token_type: 'bearer' });
});

test('expired tokens are inactive, even while the store still holds the record', async (t) => {
  const server = await newResourceServer();
  const now = Math.floor(Date.now() / 1000);
  for (const model of ['AccessToken', 'RefreshToken']) {
    const token = randomBytes(32).toString('base64url');
    await store().upsert(
      model,
      token,
      {
        kind: model,
        jti: token,
        accountId: String(user.id),
        clientId: clients.app.client.id,
        scope: 'PROFILE_READ',
        iat: now - 3600,
        exp: now - 10,
        grantId: randomBytes(16).toString('base64url'),
      },
      600,
    );
    for (const caller of [asClient('app'), server]) {
      t.deepEqual((await introspect(caller, { token })).body, { active: false }, model);
    }
  }
});

test('bad credentials, public clients and no credentials are 401 invalid_client', async (t) => {
  const tokens = await issueTokens(system.url, clients.app, user);
  const server = await newResourceServer();
  const cases: Array<[string, Credentials | undefined, { post?: boolean }, Record<string, string>]> = [
    ['wrong client secret (Basic)', { clientId: clients.app.client.id, secret: 'wrong' }, {}, {}],
    ['wrong client secret (post)', { clientId: clients.app.client.id, secret: 'wrong' }, { post: true }, {}],
    ['unknown client', { clientId: 'no-such-client', secret: 'whatever' }, {}, {}],
    ['wrong resource-server secret', { clientId: server.clientId, secret: `${server.secret}x` }, {}, {}],
    ['unknown resource server', { clientId: `rs_${'A'.repeat(22)}`, secret: server.secret }, {}, {}],
    ['no credentials', undefined, {}, {}],
    ['public client without secret', undefined, {}, { client_id: clients.spa.client.id }],
    ['public client over Basic', { clientId: clients.spa.client.id, secret: 'x' }, {}, {}],
  ];
  for (const [label, credentials, options, extra] of cases) {
    const response = await introspect(credentials, { token: tokens.access_token, ...extra }, options);
    t.is(response.status, 401, label);
    t.is(response.body.error, 'invalid_client', label);
    t.is(typeof response.body.error_description, 'string', label);
    t.false('active' in response.body, label);
    if (credentials && !options.post)
      t.regex(response.headers.get('www-authenticate') ?? '', /^Basic /, label);
  }
});

test('a missing token is 400 invalid_request', async (t) => {
  const response = await introspect(asClient('app'), {});
  t.is(response.status, 400);
  t.deepEqual(response.body, { error: 'invalid_request', error_description: 'token is required' });
});

test('discovery advertises the endpoint, and oauth4webapi processes its answers strictly', async (t) => {
  const issuer = new URL(system.url);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
  );
  t.is(as.introspection_endpoint, `${system.url}${INTROSPECT}`);
  t.deepEqual(as.introspection_endpoint_auth_methods_supported, [
    'client_secret_basic',
    'client_secret_post',
  ]);

  const tokens = await issueTokens(system.url, clients.app, user);
  const client: oauth.Client = { client_id: clients.app.client.id };
  for (const auth of [
    oauth.ClientSecretBasic(clients.app.secret!),
    oauth.ClientSecretPost(clients.app.secret!),
  ]) {
    const active = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, {
        [oauth.allowInsecureRequests]: true,
      }),
    );
    t.like(active, {
      active: true,
      client_id: clients.app.client.id,
      sub: String(user.id),
      scope: 'PROFILE_READ BOOKING_READ',
      token_type: 'bearer',
    });
    const inactive = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, 'not-a-token', {
        [oauth.allowInsecureRequests]: true,
      }),
    );
    t.deepEqual(inactive, { active: false });
  }
  const refused = oauth.processIntrospectionResponse(
    as,
    client,
    await oauth.introspectionRequest(as, client, oauth.ClientSecretBasic('wrong'), tokens.access_token, {
      [oauth.allowInsecureRequests]: true,
    }),
  );
  const error = await t.throwsAsync(refused);
  // A 401 with a Basic challenge: oauth4webapi reports the challenge.
  t.true(error instanceof oauth.WWWAuthenticateChallengeError, String(error));
  t.is((error as oauth.WWWAuthenticateChallengeError).status, 401);
  t.is((error as oauth.WWWAuthenticateChallengeError).cause[0]?.scheme, 'basic');
});

test('CORS: a bearer endpoint, open to any origin without credentials', async (t) => {
  const preflight = await fetch(`${system.url}${INTROSPECT}`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://rs.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  t.is(preflight.status, 204);
  t.is(preflight.headers.get('access-control-allow-origin'), '*');
  t.is(preflight.headers.get('access-control-allow-credentials'), null);
  const tokens = await issueTokens(system.url, clients.app, user);
  const response = await fetch(`${system.url}${INTROSPECT}`, {
    method: 'POST',
    headers: { origin: 'https://rs.example', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...clientCredentials(clients.app), token: tokens.access_token }),
  });
  t.is(response.status, 200);
  t.is(response.headers.get('access-control-allow-origin'), '*');
  t.like(await response.json(), { active: true });
});
