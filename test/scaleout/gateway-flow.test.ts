import { randomBytes } from 'node:crypto';
import test from 'ava';
import { insertApiKey, insertClient, insertUser } from '../support/factories.ts';
import { gatewayAvailable, servedBy, setUpTestGateway } from '../support/gateway.ts';
import { apiClient } from '../support/http.ts';
import { clientCredentials, issueTokens, tokenRequest } from '../support/oauth.ts';

// Two authorization servers and two resource APIs behind nginx behave as one: sessions and consent,
// revocation and rate limits are shared through Redis and Postgres.

const TOKEN_LIMIT = 6;
const serial = gatewayAvailable() ? test.serial : test.serial.skip;
const gateway = gatewayAvailable()
  ? setUpTestGateway(test, { auth: 2, api: 2, env: { RATE_LIMITS: `token=${TOKEN_LIMIT}/1m` } })
  : undefined;

/** Runs `work` and returns which processes answered the fetches it made (through the gateway). */
async function recordServers<T>(work: () => Promise<T>): Promise<{ result: T; servers: string[] }> {
  const servers: string[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (...args: Parameters<typeof fetch>) => {
    const response = await original(...args);
    if (response.headers.has('x-upstream')) servers.push(servedBy(gateway!.gateway, response));
    return response;
  };
  try {
    return { result: await work(), servers };
  } finally {
    globalThis.fetch = original;
  }
}

async function userAndClient() {
  const knex = gateway!.database.db.knex;
  const user = await insertUser(knex);
  const client = await insertClient(knex, { ownerUserId: user.id, scopes: ['PROFILE_READ'] });
  return { user, client };
}

serial('the whole code flow works with its requests spread over both auth processes', async (t) => {
  const { user, client } = await userAndClient();
  const { result: tokens, servers } = await recordServers(() =>
    issueTokens(gateway!.url, client, user, ['PROFILE_READ']),
  );
  // Authorize, sign-in page, sign-in, consent, the redirects between them and the code exchange:
  // each step found the session, interaction and code another process may have written.
  t.deepEqual([...new Set(servers)].sort(), ['auth-1', 'auth-2'], servers.join(' '));
  const call = apiClient(gateway!.url, { prefix: '/v2' });
  const { servers: apiServers } = await recordServers(async () => {
    for (let i = 0; i < 4; i++) {
      const me = await call('GET', '/me', { token: tokens.access_token });
      t.is(me.status, 200);
      t.is(me.body.data.email, user.email);
    }
  });
  t.deepEqual([...new Set(apiServers)].sort(), ['api-1', 'api-2']);
  // The refresh token works on whichever auth process gets it.
  const refreshed = await tokenRequest(gateway!.url, {
    ...clientCredentials(client),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.is(refreshed.status, 200, JSON.stringify(refreshed.body));
});

serial('a revocation through one API process is seen by the other on its next request', async (t) => {
  const { user, client } = await userAndClient();
  const tokens = await issueTokens(gateway!.url, client, user, ['PROFILE_READ']);
  const apiKey = await insertApiKey(gateway!.database.db.knex, user.id);
  const [first, second] = gateway!.gateway.api.map((process) => apiClient(process.url, { prefix: '/v2' }));
  // Both processes have seen (and may cache what they know of) the token.
  t.is((await first!('GET', '/me', { token: tokens.access_token })).status, 200);
  t.is((await second!('GET', '/me', { token: tokens.access_token })).status, 200);
  const disconnected = await first!('DELETE', `/me/connected-apps/${client.client.id}`, { token: apiKey });
  t.is(disconnected.status, 204, JSON.stringify(disconnected.body));
  const after = await second!('GET', '/me', { token: tokens.access_token });
  t.is(after.status, 401);
  t.is((await first!('GET', '/me', { token: tokens.access_token })).status, 401);
  const viaGateway = await apiClient(gateway!.url, { prefix: '/v2' })('GET', '/me', {
    token: tokens.access_token,
  });
  t.is(viaGateway.status, 401);
});

serial('rate limits are counted together by every process', async (t) => {
  const { client } = await userAndClient();
  const [first, second] = gateway!.gateway.auth;
  const remaining: string[] = [];
  // Alternating processes: the count is one, not one per process.
  for (let i = 0; i < TOKEN_LIMIT; i++) {
    const target = i % 2 === 0 ? first! : second!;
    const response = await tokenRequest(target.url, {
      ...clientCredentials(client),
      grant_type: 'authorization_code',
      code: randomBytes(16).toString('hex'),
      redirect_uri: client.redirectUri,
    });
    t.is(response.status, 400, JSON.stringify(response.body));
    remaining.push(response.headers.get('ratelimit-remaining') ?? '');
  }
  t.deepEqual(
    remaining,
    Array.from({ length: TOKEN_LIMIT }, (_, i) => String(TOKEN_LIMIT - 1 - i)),
  );
  for (const target of [first!, second!]) {
    const refused = await tokenRequest(target.url, {
      ...clientCredentials(client),
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: client.redirectUri,
    });
    t.is(refused.status, 429, `${target.name}: ${JSON.stringify(refused.body)}`);
  }
});
