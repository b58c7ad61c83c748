import test, { type ExecutionContext } from 'ava';
import { clientCredentials, FlowBrowser, issueTokens, tokenRequest } from '../support/oauth.ts';
import type { TestClient } from '../support/factories.ts';
import { setUpWorld } from '../support/world.ts';

// The refresh retry window (REFRESH_REUSE_INTERVAL, default 10 s): a refresh token presented again
// by its client soon after its first use gets the same successor tokens back; another client's
// replay, or a replay after the window, revokes the grant. Window 0 (today's behaviour) is
// test/auth/codes-and-refresh.test.ts, which runs with REFRESH_REUSE_INTERVAL=0.

const {
  system,
  store,
  call,
  user,
  clients: { app, other, spa },
} = setUpWorld(test, {
  clients: {
    app: { scopes: ['PROFILE_READ', 'BOOKING_READ'] },
    other: { scopes: ['PROFILE_READ'] },
    spa: { type: 'public', scopes: ['PROFILE_READ'] },
  },
});
let browser: FlowBrowser;

test.before(async () => {
  // One signed-in browser with remembered consent (given here, one client at a time): the tests'
  // authorizations then run side by side without a click.
  browser = new FlowBrowser(system.url);
  for (const client of [app, spa]) await issue(client);
});

const issue = (client: TestClient) => issueTokens(system.url, client, user, ['PROFILE_READ'], browser);

const refresh = (client: TestClient, refreshToken: string) =>
  tokenRequest(system.url, {
    ...clientCredentials(client),
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });

async function worksAtTheApi(t: ExecutionContext, accessToken: unknown, status: number, message: string) {
  t.is((await call('GET', '/v2/me', { token: String(accessToken) })).status, status, message);
}

test('a lost response: the retry within the window gets the same tokens, and the grant lives on', async (t) => {
  const tokens = await issue(app);
  const first = await refresh(app, tokens.refresh_token);
  t.is(first.status, 200);
  const retry = await refresh(app, tokens.refresh_token);
  t.is(retry.status, 200, JSON.stringify(retry.body));
  t.is(retry.body.access_token, first.body.access_token);
  t.is(retry.body.refresh_token, first.body.refresh_token);
  t.is(retry.body.token_type, 'bearer');
  t.is(retry.body.scope, first.body.scope);
  const expiresIn = Number(retry.body.expires_in);
  t.true(expiresIn <= Number(first.body.expires_in) && expiresIn >= Number(first.body.expires_in) - 10);
  t.is(retry.headers.get('cache-control'), 'no-store');

  await worksAtTheApi(t, first.body.access_token, 200, 'the successor access token works');
  const next = await refresh(app, String(first.body.refresh_token));
  t.is(next.status, 200, 'the successor refresh token rotates as usual');
  await worksAtTheApi(t, next.body.access_token, 200, 'and its tokens work');
});

test('a public client retries too; client authentication is still required for a retry', async (t) => {
  const tokens = await issue(spa);
  const first = await refresh(spa, tokens.refresh_token);
  t.is(first.status, 200);
  t.is((await refresh(spa, tokens.refresh_token)).body.access_token, first.body.access_token);

  const confidential = await issue(app);
  const rotated = await refresh(app, confidential.refresh_token);
  const wrongSecret = await tokenRequest(system.url, {
    client_id: app.client.id,
    client_secret: `${app.secret}x`,
    grant_type: 'refresh_token',
    refresh_token: confidential.refresh_token,
  });
  t.is(wrongSecret.status, 401);
  t.is(wrongSecret.body.error_description, 'invalid_client_credentials');
  await worksAtTheApi(t, rotated.body.access_token, 200, 'an unauthenticated retry revokes nothing');
});

test('50 concurrent uses within the window: all get the same tokens, and they work', async (t) => {
  const tokens = await issue(app);
  const responses = await Promise.all(Array.from({ length: 50 }, () => refresh(app, tokens.refresh_token)));
  t.deepEqual(
    responses.map((r) => r.status),
    responses.map(() => 200),
    JSON.stringify(responses.find((r) => r.status !== 200)?.body),
  );
  const access = new Set(responses.map((r) => r.body.access_token));
  const refreshTokens = new Set(responses.map((r) => r.body.refresh_token));
  t.is(access.size, 1, 'one access token for all');
  t.is(refreshTokens.size, 1, 'one successor refresh token for all');
  t.not([...refreshTokens][0], tokens.refresh_token);

  await worksAtTheApi(t, [...access][0], 200, 'the grant was not revoked');
  const next = await refresh(app, String([...refreshTokens][0]));
  t.is(next.status, 200, 'the successor refresh token works');
});

test('a replay after the window revokes the grant', async (t) => {
  const tokens = await issue(app);
  const first = await refresh(app, tokens.refresh_token);
  t.is(first.status, 200);
  // The window ends: the kept answer expires with it (a record with the window as its TTL).
  const kept = await store().find('RefreshRetry', tokens.refresh_token);
  t.truthy(kept, 'the answer is kept during the window');
  await store().upsert('RefreshRetry', tokens.refresh_token, kept!, -1);

  const replay = await refresh(app, tokens.refresh_token);
  t.is(replay.status, 400);
  t.deepEqual(replay.body, { error: 'invalid_grant', error_description: 'invalid_refresh_token' });
  await worksAtTheApi(t, first.body.access_token, 401, 'the successor access token is revoked');
  t.is(
    (await refresh(app, String(first.body.refresh_token))).body.error_description,
    'invalid_refresh_token',
  );
});

test("another client's replay within the window revokes the grant", async (t) => {
  const tokens = await issue(app);
  const first = await refresh(app, tokens.refresh_token);
  t.is(first.status, 200);

  const replay = await refresh(other, tokens.refresh_token);
  t.is(replay.status, 400);
  t.deepEqual(replay.body, { error: 'invalid_grant', error_description: 'invalid_refresh_token' });
  await worksAtTheApi(t, first.body.access_token, 401, 'the successor access token is revoked');
  t.is(
    (await refresh(app, String(first.body.refresh_token))).body.error_description,
    'invalid_refresh_token',
  );
  t.is(
    (await refresh(app, tokens.refresh_token)).body.error_description,
    'invalid_refresh_token',
    'the rightful client gets nothing back any more either',
  );
});

test('the kept answer is sealed: neither token can be read from the store', async (t) => {
  const tokens = await issue(app);
  const first = await refresh(app, tokens.refresh_token);
  t.is(first.status, 200);
  const kept = await store().find('RefreshRetry', tokens.refresh_token);
  t.truthy(kept);
  const stored = JSON.stringify(kept);
  for (const secret of [first.body.access_token, first.body.refresh_token]) {
    const value = String(secret);
    t.false(stored.includes(value), 'not in plain');
    t.false(stored.includes(Buffer.from(value).toString('base64url')), 'not merely encoded');
    t.false(stored.includes(Buffer.from(value).toString('base64')), 'not merely encoded');
  }
  t.deepEqual(Object.keys(kept!).sort(), ['kind', 'sealed']);

  // A sealed answer moved under another refresh token does not open there.
  const another = await issue(app);
  const second = await refresh(app, another.refresh_token);
  t.is(second.status, 200);
  await store().upsert('RefreshRetry', another.refresh_token, kept!, 10);
  const replay = await refresh(app, another.refresh_token);
  t.is(replay.status, 400, 'nothing to hand back: the reuse is refused');
  t.not(replay.body.access_token, first.body.access_token);
});
