import test from 'ava';
import { clientCredentials, issueTokens, obtainCode, pkcePair, tokenRequest } from '../support/oauth.ts';
import { setUpWorld } from '../support/world.ts';
import { insertClient, type TestClient } from '../support/factories.ts';

// Every row of the token endpoint's error table (docs/client-developers.md "Errors a client sees"),
// each in its own test, plus the success shape in JSON, form and HTTP Basic variants.

const {
  system,
  store,
  user,
  clients: { app, other, spa },
} = setUpWorld(test, {
  clients: {
    app: { scopes: ['PROFILE_READ', 'BOOKING_READ'] },
    other: { scopes: ['PROFILE_READ'] },
    spa: { type: 'public', scopes: ['PROFILE_READ'] },
  },
});

/** A fresh code for `client` (PKCE always), with what is needed to redeem it. */
async function freshCode(client: TestClient, scope = 'PROFILE_READ') {
  const pkce = pkcePair();
  const { code } = await obtainCode(
    system.url,
    {
      client_id: client.client.id,
      redirect_uri: client.redirectUri,
      scope,
      state: 's',
      code_challenge: pkce.challenge,
    },
    { user },
  );
  const redeem: Record<string, string> = {
    ...clientCredentials(client),
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    code_verifier: pkce.verifier,
  };
  return { code, verifier: pkce.verifier, redeem };
}

/** Moves a stored record's expiry into the past (oidc-provider then sees it expired). */
async function expire(model: string, id: string) {
  const payload = await store().find(model, id);
  if (!payload) throw new Error(`no ${model} ${id}`);
  await store().upsert(model, id, { ...payload, exp: Math.floor(Date.now() / 1000) - 5 }, 60);
}

function isError(
  t: { is: (a: unknown, b: unknown, m?: string) => void },
  response: { status: number; body: Record<string, unknown>; headers: Headers },
  status: number,
  error: string,
  description: string,
) {
  t.is(response.status, status, JSON.stringify(response.body));
  t.is(response.body.error, error);
  t.is(response.body.error_description, description);
  t.is(response.headers.get('cache-control'), 'no-store');
  t.is(response.headers.get('pragma'), 'no-cache');
}

// --- success shape -----------------------------------------------------------------------------

test('form body: 200 with access and refresh token, bearer, 1800 s, scope, no-store', async (t) => {
  const { redeem } = await freshCode(app, 'PROFILE_READ BOOKING_READ');
  const response = await tokenRequest(system.url, redeem);
  t.is(response.status, 200);
  t.deepEqual(Object.keys(response.body).sort(), [
    'access_token',
    'expires_in',
    'refresh_token',
    'scope',
    'token_type',
  ]);
  t.is(response.body.token_type, 'bearer');
  t.is(response.body.expires_in, 1800);
  t.is(response.body.scope, 'PROFILE_READ BOOKING_READ');
  t.is(response.headers.get('cache-control'), 'no-store');
  t.is(response.headers.get('pragma'), 'no-cache');
});

test('JSON body is accepted like a form body', async (t) => {
  const { redeem } = await freshCode(app);
  const response = await tokenRequest(system.url, redeem, { json: true });
  t.is(response.status, 200, JSON.stringify(response.body));
  t.is(response.body.scope, 'PROFILE_READ');
});

test('HTTP Basic client authentication is accepted', async (t) => {
  const { redeem } = await freshCode(app);
  const { client_id: _id, client_secret: _secret, ...rest } = redeem;
  const response = await tokenRequest(system.url, rest, {
    basic: { clientId: app.client.id, secret: app.secret! },
  });
  t.is(response.status, 200, JSON.stringify(response.body));
});

test('HTTP Basic with JSON body is accepted too', async (t) => {
  const { redeem } = await freshCode(app);
  const { client_secret: _secret, ...rest } = redeem;
  const response = await tokenRequest(system.url, rest, {
    json: true,
    basic: { clientId: app.client.id, secret: app.secret! },
  });
  t.is(response.status, 200, JSON.stringify(response.body));
});

// The four variants of api-v2.md's token endpoint: the confidential ones sign with client_secret
// on both grants, the public ones send only client_id (code_verifier on the code exchange).

test('public client, refresh_token: client_id and refresh_token without a secret; 200, rotated, scope kept', async (t) => {
  const { redeem } = await freshCode(spa);
  t.false('client_secret' in redeem);
  const issued = await tokenRequest(system.url, redeem);
  t.is(issued.status, 200, JSON.stringify(issued.body));
  const refreshed = await tokenRequest(system.url, {
    client_id: spa.client.id,
    grant_type: 'refresh_token',
    refresh_token: String(issued.body.refresh_token),
  });
  t.is(refreshed.status, 200, JSON.stringify(refreshed.body));
  t.is(refreshed.body.scope, 'PROFILE_READ');
  t.is(refreshed.body.expires_in, 1800);
  t.is(refreshed.body.token_type, 'bearer');
  t.not(refreshed.body.refresh_token, issued.body.refresh_token);
  t.is(refreshed.headers.get('cache-control'), 'no-store');
  t.is(refreshed.headers.get('pragma'), 'no-cache');
});

test('confidential client, refresh_token without client_secret: 401 invalid_client "invalid_client_credentials"', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  const response = await tokenRequest(system.url, {
    client_id: app.client.id,
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  isError(t, response, 401, 'invalid_client', 'invalid_client_credentials');
  // The refused request did not spend the refresh token.
  const withSecret = await tokenRequest(system.url, {
    ...clientCredentials(app),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.is(withSecret.status, 200, JSON.stringify(withSecret.body));
});

// --- the documented table, row by row ----------------------------------------------------------

test('client_id missing: 400 invalid_request "client_id is required"', async (t) => {
  const response = await tokenRequest(system.url, { grant_type: 'refresh_token', refresh_token: 'x' });
  isError(t, response, 400, 'invalid_request', 'client_id is required');
});

test('grant_type other than the two: 400 unsupported_grant_type', async (t) => {
  for (const grantType of [
    'client_credentials',
    'password',
    'implicit',
    'urn:ietf:params:oauth:grant-type:device_code',
  ]) {
    const response = await tokenRequest(system.url, { ...clientCredentials(app), grant_type: grantType });
    isError(
      t,
      response,
      400,
      'unsupported_grant_type',
      "grant_type must be 'authorization_code' or 'refresh_token'",
    );
  }
});

test('grant_type missing is "neither of the two": 400 unsupported_grant_type', async (t) => {
  const response = await tokenRequest(system.url, { ...clientCredentials(app) });
  isError(
    t,
    response,
    400,
    'unsupported_grant_type',
    "grant_type must be 'authorization_code' or 'refresh_token'",
  );
});

test('no client with that id: 401 invalid_client "client_not_found"', async (t) => {
  const response = await tokenRequest(system.url, {
    client_id: 'no-such-client',
    client_secret: 'whatever',
    grant_type: 'authorization_code',
    code: 'x',
  });
  isError(t, response, 401, 'invalid_client', 'client_not_found');
});

test('wrong secret: 401 invalid_client "invalid_client_credentials"', async (t) => {
  const { redeem } = await freshCode(app);
  const response = await tokenRequest(system.url, { ...redeem, client_secret: `${app.secret}x` });
  isError(t, response, 401, 'invalid_client', 'invalid_client_credentials');
});

test('missing secret of a confidential client: 401 invalid_client "invalid_client_credentials"', async (t) => {
  const { redeem } = await freshCode(app);
  const { client_secret: _secret, ...withoutSecret } = redeem;
  const response = await tokenRequest(system.url, withoutSecret);
  isError(t, response, 401, 'invalid_client', 'invalid_client_credentials');
});

test('wrong secret over HTTP Basic: 401 with a Basic challenge', async (t) => {
  const response = await tokenRequest(
    system.url,
    { grant_type: 'refresh_token', refresh_token: 'x' },
    { basic: { clientId: app.client.id, secret: 'wrong' } },
  );
  isError(t, response, 401, 'invalid_client', 'invalid_client_credentials');
  t.regex(response.headers.get('www-authenticate') ?? '', /^Basic realm=/);
});

test('pending client: 401 unauthorized_client "client_not_approved"', async (t) => {
  const pending = await insertClient(system.stores.db.knex, { status: 'PENDING' });
  const response = await tokenRequest(system.url, {
    ...clientCredentials(pending),
    grant_type: 'authorization_code',
    code: 'x',
    redirect_uri: pending.redirectUri,
  });
  isError(t, response, 401, 'unauthorized_client', 'client_not_approved');
});

test('rejected client: 401 unauthorized_client "client_rejected"', async (t) => {
  const rejected = await insertClient(system.stores.db.knex, { status: 'REJECTED' });
  const response = await tokenRequest(system.url, {
    ...clientCredentials(rejected),
    grant_type: 'refresh_token',
    refresh_token: 'x',
  });
  isError(t, response, 401, 'unauthorized_client', 'client_rejected');
});

test('unknown code: 400 invalid_grant "code_invalid_or_expired"', async (t) => {
  const response = await tokenRequest(system.url, {
    ...clientCredentials(app),
    grant_type: 'authorization_code',
    code: 'not-a-code-we-issued',
    redirect_uri: app.redirectUri,
  });
  isError(t, response, 400, 'invalid_grant', 'code_invalid_or_expired');
});

test('used code: 400 invalid_grant "code_invalid_or_expired"', async (t) => {
  const { redeem } = await freshCode(app);
  t.is((await tokenRequest(system.url, redeem)).status, 200);
  isError(t, await tokenRequest(system.url, redeem), 400, 'invalid_grant', 'code_invalid_or_expired');
});

test('expired code: 400 invalid_grant "code_invalid_or_expired"', async (t) => {
  const { code, redeem } = await freshCode(app);
  await expire('AuthorizationCode', code);
  isError(t, await tokenRequest(system.url, redeem), 400, 'invalid_grant', 'code_invalid_or_expired');
});

test('another client\'s code: 400 invalid_grant "code_invalid_or_expired"', async (t) => {
  const { redeem } = await freshCode(app);
  const response = await tokenRequest(system.url, {
    ...redeem,
    ...clientCredentials(other),
    redirect_uri: other.redirectUri,
  });
  isError(t, response, 400, 'invalid_grant', 'code_invalid_or_expired');
});

test('redirect_uri differing from the authorization request: 400 invalid_grant "redirect_uri_mismatch"', async (t) => {
  const twoUris = await insertClient(system.stores.db.knex, {
    redirectUris: ['https://two.example.com/a', 'https://two.example.com/b'],
  });
  const { redeem } = await freshCode(twoUris);
  const response = await tokenRequest(system.url, { ...redeem, redirect_uri: 'https://two.example.com/b' });
  isError(t, response, 400, 'invalid_grant', 'redirect_uri_mismatch');
});

test('PKCE verifier missing: 400 invalid_grant "pkce_verification_failed"', async (t) => {
  const { redeem } = await freshCode(spa);
  const { code_verifier: _verifier, ...withoutVerifier } = redeem;
  isError(
    t,
    await tokenRequest(system.url, withoutVerifier),
    400,
    'invalid_grant',
    'pkce_verification_failed',
  );
});

test('PKCE verifier wrong: 400 invalid_grant "pkce_verification_failed"', async (t) => {
  const { redeem } = await freshCode(spa);
  const wrong = { ...redeem, code_verifier: pkcePair().verifier };
  isError(t, await tokenRequest(system.url, wrong), 400, 'invalid_grant', 'pkce_verification_failed');
  const malformed = { ...redeem, code_verifier: 'short' };
  isError(t, await tokenRequest(system.url, malformed), 400, 'invalid_grant', 'pkce_verification_failed');
});

test('unknown refresh token: 400 invalid_grant "invalid_refresh_token"', async (t) => {
  const response = await tokenRequest(system.url, {
    ...clientCredentials(app),
    grant_type: 'refresh_token',
    refresh_token: 'not-a-refresh-token',
  });
  isError(t, response, 400, 'invalid_grant', 'invalid_refresh_token');
});

test('expired refresh token: 400 invalid_grant "invalid_refresh_token"', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  await expire('RefreshToken', tokens.refresh_token);
  const response = await tokenRequest(system.url, {
    ...clientCredentials(app),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  isError(t, response, 400, 'invalid_grant', 'invalid_refresh_token');
});

test('revoked refresh token: 400 invalid_grant "invalid_refresh_token"', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  const revoked = await tokenRequest(
    system.url,
    { ...clientCredentials(app), token: tokens.refresh_token },
    { path: '/v2/auth/oauth2/revoke' },
  );
  t.is(revoked.status, 200);
  const response = await tokenRequest(system.url, {
    ...clientCredentials(app),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  isError(t, response, 400, 'invalid_grant', 'invalid_refresh_token');
});

test('another client\'s refresh token: 400 invalid_grant "invalid_refresh_token"', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  const response = await tokenRequest(system.url, {
    ...clientCredentials(other),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  isError(t, response, 400, 'invalid_grant', 'invalid_refresh_token');
});
