import { storedTokenId, tagOf } from '@sched/db/token-store/keys';
import type { AccessTokenPayload } from '@sched/db/token-store/types';
import test from 'ava';
import {
  authorizeUrl,
  clientCredentials,
  FlowBrowser,
  issueTokens,
  obtainCode,
  pkcePair,
  tokenRequest,
} from '../support/oauth.ts';
import { dumpTokenStore, leaks } from '../support/store-dump.ts';
import { setUpWorld } from '../support/world.ts';
import type { TestClient } from '../support/factories.ts';

// Single use of codes and refresh tokens (replay, reuse detection, concurrency), PKCE, scopes on
// refresh, and the token records the resource API reads. With the refresh retry window off
// (REFRESH_REUSE_INTERVAL=0): every reuse of a refresh token is refused, as before the window;
// the window itself is test/auth/refresh-window.test.ts.

const {
  system,
  store,
  call,
  user,
  clients: { app, spa },
} = setUpWorld(test, {
  env: { REFRESH_REUSE_INTERVAL: '0' },
  clients: {
    app: { scopes: ['PROFILE_READ', 'BOOKING_READ'] },
    spa: { type: 'public', scopes: ['PROFILE_READ'] },
  },
});
let browser: FlowBrowser;

/** Where the system's token store keeps its records: Redis with REDIS_URL, else the database. */
const storage = () =>
  system.redis
    ? { redis: system.redis.redis, prefix: system.redis.prefix }
    : { knex: system.database.db.knex };

test.before(async () => {
  // One signed-in browser with remembered consent: later authorizations need no clicks.
  browser = new FlowBrowser(system.url);
  for (const client of [app, spa]) await code(client, { scope: client.client.scopes.join(' ') });
});

async function code(client: TestClient, options: { scope?: string; pkce?: boolean } = {}) {
  const pkce = pkcePair();
  const params: Record<string, string> = {
    client_id: client.client.id,
    redirect_uri: client.redirectUri,
    scope: options.scope ?? 'PROFILE_READ',
    state: 'st',
  };
  if (options.pkce !== false) params.code_challenge = pkce.challenge;
  const { code } = await obtainCode(system.url, params, { user, browser });
  const redeem: Record<string, string> = {
    ...clientCredentials(client),
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
  };
  if (options.pkce !== false) redeem.code_verifier = pkce.verifier;
  return { code, redeem };
}

const refresh = (client: TestClient, refreshToken: string, extra: Record<string, string> = {}) =>
  tokenRequest(system.url, {
    ...clientCredentials(client),
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...extra,
  });

test('a replayed code fails and revokes what the first redemption issued', async (t) => {
  const { redeem } = await code(app);
  const first = await tokenRequest(system.url, redeem);
  t.is(first.status, 200);
  const accessToken = String(first.body.access_token);
  t.truthy(await store().find('AccessToken', accessToken));

  const second = await tokenRequest(system.url, redeem);
  t.is(second.status, 400);
  t.is(second.body.error, 'invalid_grant');
  t.is(second.body.error_description, 'code_invalid_or_expired');

  t.is(await store().find('AccessToken', accessToken), undefined, 'first access token revoked');
  const refreshed = await refresh(app, String(first.body.refresh_token));
  t.is(refreshed.body.error_description, 'invalid_refresh_token', 'first refresh token revoked');
});

test('50 concurrent redemptions of one code: exactly one 200', async (t) => {
  const { redeem } = await code(app);
  const responses = await Promise.all(Array.from({ length: 50 }, () => tokenRequest(system.url, redeem)));
  const statuses = responses.map((r) => r.status);
  t.is(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
  for (const response of responses.filter((r) => r.status !== 200)) {
    t.is(response.status, 400);
    t.is(response.body.error, 'invalid_grant');
    t.is(response.body.error_description, 'code_invalid_or_expired');
  }
});

test('refresh tokens rotate, and a reused one fails and revokes the whole grant', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  const rotated = await refresh(app, tokens.refresh_token);
  t.is(rotated.status, 200);
  t.not(rotated.body.refresh_token, tokens.refresh_token);
  const newAccess = String(rotated.body.access_token);
  const newRefresh = String(rotated.body.refresh_token);
  t.truthy(await store().find('AccessToken', newAccess));

  const reused = await refresh(app, tokens.refresh_token);
  t.is(reused.status, 400);
  t.is(reused.body.error, 'invalid_grant');
  t.is(reused.body.error_description, 'invalid_refresh_token');

  t.is(await store().find('AccessToken', newAccess), undefined, 'tokens of the grant are revoked');
  t.is((await refresh(app, newRefresh)).body.error_description, 'invalid_refresh_token');
});

test('concurrent refreshes of one refresh token: exactly one succeeds', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  const responses = await Promise.all(Array.from({ length: 20 }, () => refresh(app, tokens.refresh_token)));
  t.is(responses.filter((r) => r.status === 200).length, 1, responses.map((r) => r.status).join(','));
});

test('PKCE downgrade: a code issued with a challenge is refused without its verifier (confidential too)', async (t) => {
  const { redeem } = await code(app);
  const { code_verifier: _verifier, ...withoutVerifier } = redeem;
  const response = await tokenRequest(system.url, withoutVerifier);
  t.is(response.status, 400);
  t.is(response.body.error_description, 'pkce_verification_failed');
  // The code was not used up by the failed attempt; the right verifier still works.
  t.is((await tokenRequest(system.url, redeem)).status, 200);
});

test('PKCE: a verifier sent for a code issued without a challenge is refused', async (t) => {
  const { redeem } = await code(app, { pkce: false });
  const response = await tokenRequest(system.url, { ...redeem, code_verifier: pkcePair().verifier });
  t.is(response.status, 400);
  t.is(response.body.error_description, 'pkce_verification_failed');
});

test('a confidential client may skip PKCE; a public client may not (page error)', async (t) => {
  const { redeem } = await code(app, { pkce: false });
  t.is((await tokenRequest(system.url, redeem)).status, 200);
  await t.throwsAsync(code(spa, { pkce: false }), { message: /code_challenge is required/ });
});

test('scopes are preserved on refresh, and a scope parameter on refresh is ignored', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ', 'BOOKING_READ']);
  t.is(tokens.scope, 'PROFILE_READ BOOKING_READ');
  const first = await refresh(app, tokens.refresh_token);
  t.is(first.body.scope, 'PROFILE_READ BOOKING_READ');
  const second = await refresh(app, String(first.body.refresh_token), { scope: 'PROFILE_READ' });
  t.is(second.status, 200);
  t.is(second.body.scope, 'PROFILE_READ BOOKING_READ');
  const record = await store().find<AccessTokenPayload>('AccessToken', String(second.body.access_token));
  t.is(record?.scope, 'PROFILE_READ BOOKING_READ');
  t.is(record?.gty, 'authorization_code refresh_token');
});

test('access-token record: the fields the resource API reads, found by the token value, stored under its hash', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  const record = await store().find<AccessTokenPayload>('AccessToken', tokens.access_token);
  t.truthy(record);
  t.is(record!.kind, 'AccessToken');
  t.is(record!.jti, tokens.access_token, 'put back from the token presented');
  t.is(record!.accountId, String(user.user.id));
  t.is(record!.clientId, app.client.id);
  t.is(record!.scope, 'PROFILE_READ');
  t.is(record!.exp - record!.iat, 1800);
  t.is(typeof record!.grantId, 'string');
  t.deepEqual(record!.extra, { legacy: false });
  const dump = await dumpTokenStore(storage());
  const key = storedTokenId(tokens.access_token);
  t.true(
    dump.some((line) => line.includes(key)),
    'the record is under the hash of the token and its grant tag',
  );
  t.true(key.endsWith(`.${tagOf(record!.grantId)}`), "in the grant's slot");
});

test('after a code flow, an API call and a refresh, nothing in the store holds a code, a token or the session cookie', async (t) => {
  const { code: value, redeem } = await code(app, { scope: 'PROFILE_READ' });
  const issued = await tokenRequest(system.url, redeem);
  t.is(issued.status, 200);
  const first = issued.body as { access_token: string; refresh_token: string };
  t.is((await call('GET', '/v2/me', { token: first.access_token })).status, 200);
  const rotated = await refresh(app, first.refresh_token);
  t.is(rotated.status, 200);
  const second = rotated.body as { access_token: string; refresh_token: string };
  t.is((await call('GET', '/v2/me', { token: second.access_token })).status, 200);
  t.is((await refresh(app, first.refresh_token)).status, 400, 'reuse is still detected');
  // An authorization waiting at its consent page: its interaction names the signed-in session.
  const pending = await browser.open(
    authorizeUrl(system.url, {
      client_id: app.client.id,
      redirect_uri: app.redirectUri,
      scope: 'PROFILE_READ',
      state: 'st',
      prompt: 'consent',
      code_challenge: pkcePair().challenge,
    }),
  );
  t.is(pending.kind, 'page');
  t.regex(pending.url.pathname, /consent|interaction/);
  const session = [...browser.jar.cookies.values()].find((cookie) => cookie.name === 'auth.session')?.value;
  t.truthy(session);
  const secrets = [value, first.access_token, first.refresh_token, second.access_token, second.refresh_token];
  // Each whole value and its random part (a grant's tag alone is no secret).
  const parts = [...secrets, session!].flatMap((secret) => [secret, secret.split('.')[0]!]);
  t.deepEqual(leaks(await dumpTokenStore(storage()), parts), []);
});

test('lifetimes: codes 60 s, refresh tokens 30 days', async (t) => {
  const { code: value, redeem } = await code(app);
  const stored = await store().find<{ iat: number; exp: number }>('AuthorizationCode', value);
  t.is(stored!.exp - stored!.iat, 60);
  const response = await tokenRequest(system.url, redeem);
  const refreshRecord = await store().find<{ iat: number; exp: number }>(
    'RefreshToken',
    String(response.body.refresh_token),
  );
  t.is(refreshRecord!.exp - refreshRecord!.iat, 30 * 24 * 60 * 60);
});

test('revoking an access token leaves it unusable at once', async (t) => {
  const tokens = await issueTokens(system.url, spa, user, ['PROFILE_READ']);
  const response = await tokenRequest(
    system.url,
    { client_id: spa.client.id, token: tokens.access_token, token_type_hint: 'access_token' },
    { path: '/v2/auth/oauth2/revoke', json: true },
  );
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-store');
  t.is(await store().find('AccessToken', tokens.access_token), undefined);
});

test("revoking another client's token answers 200 and leaves it alone", async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  const response = await tokenRequest(
    system.url,
    { client_id: spa.client.id, token: tokens.access_token },
    { path: '/v2/auth/oauth2/revoke' },
  );
  t.is(response.status, 200);
  t.truthy(await store().find('AccessToken', tokens.access_token));
});
