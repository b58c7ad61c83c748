import { HASHED_IDS_MARK, storedTokenId, TOKEN_TABLES } from '@sched/db/token-store/keys';
import { createRawRedisTokenStore } from '@sched/db/token-store/redis';
import { createRawSqlTokenStore } from '@sched/db/token-store/sql';
import type { TokenStore } from '@sched/db/token-store/types';
import test from 'ava';
import {
  clientCredentials,
  FlowBrowser,
  issueTokens,
  obtainCode,
  type PageResult,
  type RedirectResult,
  pkcePair,
  tokenRequest,
} from '../support/oauth.ts';
import { startSecondApi } from '../api/helpers/second-api.ts';
import { apiClient } from '../support/http.ts';
import { dumpTokenStore, leaks } from '../support/store-dump.ts';
import { setUpWorld } from '../support/world.ts';

// The upgrade to hashed token ids (docs/token-store.md "Hashed ids"): codes, tokens and sessions
// stored before it (under their own value, the value as `jti`) keep working through the running
// system until they expire, each only as long as it would have, and none comes back once used up
// or ended. The store is Redis with REDIS_URL, else the database.

const {
  system,
  store,
  call,
  user,
  clients: { app },
} = setUpWorld(test, {
  env: { REFRESH_REUSE_INTERVAL: '0' },
  clients: { app: { scopes: ['PROFILE_READ'] } },
});

/** The system's storage without hashing: what the version before wrote and read. */
function oldStore(): TokenStore {
  return system.redis
    ? createRawRedisTokenStore({ redis: system.redis.redis, prefix: system.redis.prefix })
    : createRawSqlTokenStore({ knex: system.database.db.knex });
}

const dump = () =>
  dumpTokenStore(
    system.redis
      ? { redis: system.redis.redis, prefix: system.redis.prefix }
      : { knex: system.database.db.knex },
  );

/** Moves a record back to the layout before hashing: under its value, with its value as `jti`. */
async function toOldLayout(model: string, value: string): Promise<void> {
  const record = await store().find(model, value);
  if (!record || typeof record.exp !== 'number') throw new Error(`no ${model} record to move`);
  await oldStore().upsert(
    model,
    value,
    { ...record, jti: value },
    record.exp - Math.floor(Date.now() / 1000),
  );
  await oldStore().destroy(model, storedTokenId(value));
}

/** When the system's store first served hashed ids (epoch ms), as stored. */
async function readMark(): Promise<number | undefined> {
  if (system.redis) {
    const value = await system.redis.redis.get(`${system.redis.prefix}${HASHED_IDS_MARK}`);
    return value === null ? undefined : Number(value);
  }
  const row = (await system.database.db
    .knex(TOKEN_TABLES.counters)
    .where({ key: HASHED_IDS_MARK })
    .first('value')) as { value: string } | undefined;
  return row === undefined ? undefined : Number(row.value);
}

async function writeMark(value: number): Promise<void> {
  if (system.redis) await system.redis.redis.set(`${system.redis.prefix}${HASHED_IDS_MARK}`, String(value));
  else await system.database.db.knex(TOKEN_TABLES.counters).where({ key: HASHED_IDS_MARK }).update({ value });
}

const refresh = (refreshToken: string) =>
  tokenRequest(system.url, {
    ...clientCredentials(app),
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });

function page(result: PageResult | RedirectResult): PageResult {
  if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
  return result;
}

test('tokens of the old layout: the access token works, the refresh token rotates once and its reuse is detected', async (t) => {
  const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
  await toOldLayout('AccessToken', tokens.access_token);
  await toOldLayout('RefreshToken', tokens.refresh_token);
  const stored = await dump();
  for (const token of [tokens.access_token, tokens.refresh_token])
    t.not(leaks(stored, [token]).length, 0, 'stored the old way');

  t.is((await call('GET', '/v2/me', { token: tokens.access_token })).status, 200);
  const rotated = await refresh(tokens.refresh_token);
  t.is(rotated.status, 200);
  const next = rotated.body as { access_token: string; refresh_token: string };
  t.is((await call('GET', '/v2/me', { token: next.access_token })).status, 200);
  t.deepEqual(leaks(await dump(), [next.access_token, next.refresh_token]), [], 'new tokens are hashed');

  const replay = await refresh(tokens.refresh_token);
  t.is(replay.status, 400);
  t.is(replay.body.error, 'invalid_grant');
  // Reuse detection revoked the grant: both layouts' tokens end.
  t.is((await call('GET', '/v2/me', { token: next.access_token })).status, 401);
  t.is((await call('GET', '/v2/me', { token: tokens.access_token })).status, 401);
  t.is((await refresh(next.refresh_token)).status, 400);
});

test('a code of the old layout is redeemed once', async (t) => {
  const pkce = pkcePair();
  const { code } = await obtainCode(
    system.url,
    {
      client_id: app.client.id,
      redirect_uri: app.redirectUri,
      scope: 'PROFILE_READ',
      state: 'st',
      code_challenge: pkce.challenge,
    },
    { user },
  );
  await toOldLayout('AuthorizationCode', code);
  const redeem = {
    ...clientCredentials(app),
    grant_type: 'authorization_code',
    code,
    redirect_uri: app.redirectUri,
    code_verifier: pkce.verifier,
  };
  const first = await tokenRequest(system.url, redeem);
  t.is(first.status, 200);
  const second = await tokenRequest(system.url, redeem);
  t.is(second.status, 400);
  t.is(second.body.error, 'invalid_grant');
  t.is(
    (await call('GET', '/v2/me', { token: String(first.body.access_token) })).status,
    401,
    'replay revokes',
  );
});

test('a session of the old layout stays signed in, and signing out ends it for good', async (t) => {
  const browser = new FlowBrowser(system.url);
  const form = page(await browser.open('/auth/settings'));
  const signedIn = page(
    await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: user.password }),
  );
  t.is(signedIn.url.pathname, '/auth/settings');
  const cookies = new Map(browser.jar.cookies);
  const session = [...cookies.values()].find((cookie) => cookie.name === 'auth.session')!.value;
  await toOldLayout('Session', session);
  t.truthy(await oldStore().find('Session', session));

  const account = page(await browser.open('/auth/settings'));
  t.is(account.url.pathname, '/auth/settings', 'still signed in');
  const out = page(await browser.submit(account, '/auth/settings/sign-out', {}));
  t.is(out.url.pathname, '/auth/settings/sign-in');
  t.is(await oldStore().find('Session', session), undefined);
  t.is(await store().find('Session', session), undefined);

  // The old cookie, presented again, signs nobody in.
  for (const [key, cookie] of cookies) browser.jar.cookies.set(key, cookie);
  t.is(page(await browser.open('/auth/settings')).url.pathname, '/auth/settings/sign-in');
});

// Serial: it moves the store's mark back and restores it, and the running system must have read
// it before (the other tests rely on its fallback).
test.serial(
  'once every token of the old layout has expired, a process started since no longer looks for them',
  async (t) => {
    const tokens = await issueTokens(system.url, app, user, ['PROFILE_READ']);
    await toOldLayout('AccessToken', tokens.access_token);
    t.is((await call('GET', '/v2/me', { token: tokens.access_token })).status, 200);
    const began = await readMark();
    if (began === undefined) return t.fail('the running system wrote no mark');
    t.true(began <= Date.now());

    // Hashing began two years ago: longer than any token lives, whatever the configuration.
    await writeMark(Date.now() - 2 * 365 * 24 * 3600 * 1000);
    t.teardown(() => writeMark(began));
    const second = await startSecondApi(system);
    t.teardown(() => second.close());
    const two = apiClient(() => second.url);
    t.is((await two('GET', '/v2/me', { token: tokens.access_token })).status, 401, 'not looked for');
    const next = await issueTokens(system.url, app, user, ['PROFILE_READ']);
    t.is((await two('GET', '/v2/me', { token: next.access_token })).status, 200, 'hashed tokens work');
    t.is(
      (await call('GET', '/v2/me', { token: tokens.access_token })).status,
      200,
      'a process started before keeps its view',
    );
  },
);
