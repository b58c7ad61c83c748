import test from 'ava';
import { loadConfig, longestTokenLifetime } from '@sched/kit/config';
import { parseRateLimits, RATE_LIMIT_DEFAULTS } from '@sched/kit/rate-limits';
import { insertClient, insertUser } from '../support/factories.ts';
import { issueTokens, tokenRequest } from '../support/oauth.ts';
import { startWorld } from '../support/world.ts';

/** Token lifetimes and every rate limit come from configuration; rate-limited answers say where they stand. */

test('RATE_LIMITS: name=max/window over the defaults, windows in seconds or s, m, h, d', (t) => {
  const limits = parseRateLimits('token=2400/1m, sign-up-ip=5/1h,invitations=10/86400,bookings=7/2d');
  t.deepEqual(limits.token, { max: 2400, windowSeconds: 60 });
  t.deepEqual(limits['sign-up-ip'], { max: 5, windowSeconds: 3600 });
  t.deepEqual(limits.invitations, { max: 10, windowSeconds: 86_400 });
  t.deepEqual(limits.bookings, { max: 7, windowSeconds: 172_800 });
  t.deepEqual(limits.revoke, RATE_LIMIT_DEFAULTS.revoke);
  t.deepEqual(parseRateLimits(undefined), RATE_LIMIT_DEFAULTS);
});

test('a bad RATE_LIMITS or lifetime stops the start with a message naming the variable', (t) => {
  t.throws(() => loadConfig({ RATE_LIMITS: 'tokens=5/1m' }), {
    message: /RATE_LIMITS has no limit named 'tokens'/,
  });
  t.throws(() => loadConfig({ RATE_LIMITS: 'token=5' }), {
    message: /RATE_LIMITS entry 'token=5' must look like/,
  });
  t.throws(() => loadConfig({ RATE_LIMITS: 'token=0/1m' }), { message: /RATE_LIMITS/ });
  t.throws(() => loadConfig({ ACCESS_TOKEN_TTL: '5' }), { message: /ACCESS_TOKEN_TTL/ });
  t.throws(() => loadConfig({ REFRESH_TOKEN_TTL: 'soon' }), { message: /REFRESH_TOKEN_TTL/ });
  const config = loadConfig({ ACCESS_TOKEN_TTL: '600', REFRESH_TOKEN_TTL: '86400' });
  t.deepEqual(config.tokenTtl, { accessToken: 600, refreshToken: 86_400 });
  t.deepEqual(loadConfig({}).tokenTtl, { accessToken: 1800, refreshToken: 2_592_000 });
});

test('the longest token lifetime (how long the store looks for ids of the old layout) follows the config', (t) => {
  const day = 24 * 3600;
  t.is(longestTokenLifetime(loadConfig({}).tokenTtl), 30 * day, 'a refresh token, by default');
  t.is(longestTokenLifetime(loadConfig({ REFRESH_TOKEN_TTL: '86400' }).tokenTtl), 14 * day, 'a session');
  t.is(longestTokenLifetime(loadConfig({ REFRESH_TOKEN_TTL: String(90 * day) }).tokenTtl), 90 * day);
});

test('configured limits and lifetimes hold, and rate-limited answers carry RateLimit headers', async (t) => {
  const world = await startWorld({
    env: { RATE_LIMITS: 'api-keys=2/1h,token=3/1m', ACCESS_TOKEN_TTL: '120' },
  });
  t.teardown(() => world.close());
  const user = await insertUser(world.knex());

  // An API route's limit: the configured figures, the headers on every answer, the 429 and the document.
  const first = await fetch(`${world.system.url}/v2/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.apiKey}` },
  });
  t.is(first.status, 201);
  t.is(first.headers.get('ratelimit-limit'), '2');
  t.is(first.headers.get('ratelimit-remaining'), '1');
  t.true(Number(first.headers.get('ratelimit-reset')) > 0);
  await fetch(`${world.system.url}/v2/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.apiKey}` },
  });
  const third = await fetch(`${world.system.url}/v2/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.apiKey}` },
  });
  t.is(third.status, 429);
  t.is(third.headers.get('ratelimit-remaining'), '0');
  t.truthy(third.headers.get('retry-after'));
  const document = (await world.call('GET', '/v2/openapi.json')).body;
  t.like(document.paths['/api-keys'].post['x-rate-limit'], { name: 'api-keys', max: 2, windowSeconds: 3600 });

  // The token endpoint: ACCESS_TOKEN_TTL in expires_in, the limit per client with its headers.
  const { client, secret, redirectUri } = await insertClient(world.knex(), { scopes: ['PROFILE_READ'] });
  const tokens = await issueTokens(world.system.url, { client, secret, redirectUri }, user, ['PROFILE_READ']);
  t.is(tokens.expires_in, 120);
  const refresh = (refreshToken: string) =>
    tokenRequest(world.system.url, {
      client_id: client.id,
      client_secret: secret!,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
  const second = await refresh(tokens.refresh_token);
  t.is(second.status, 200);
  t.is(second.headers.get('ratelimit-limit'), '3');
  t.is(second.headers.get('ratelimit-remaining'), '1');
  await refresh(String(second.body.refresh_token));
  const over = await refresh('whatever');
  t.is(over.status, 429);
  t.is(over.headers.get('ratelimit-remaining'), '0');
  t.truthy(over.headers.get('retry-after'));
});
