import { randomBytes } from 'node:crypto';
import test from 'ava';
import { insertApiKey, insertClient, insertUser, type TestClient } from '../support/factories.ts';
import { createEmbedClient, embedUrl, pageMessage } from '../embed-flow/helpers.ts';
import { gatewayAvailable, servedBy, setUpTestGateway } from '../support/gateway.ts';
import { apiClient } from '../support/http.ts';
import { childEnv, runToEnd } from '../support/process.ts';
import {
  authorizeInBrowser,
  authorizeUrl,
  FlowBrowser,
  formOf,
  issueTokens,
  obtainCode,
  pkcePair,
  tokenRequest,
} from '../support/oauth.ts';

// N authorization servers and M resource APIs behave as one for what gateway-flow.test.ts does not
// cover: remembered consent and its withdrawal, RFC 7009 revocation on an auth process seen by
// every API process, a client change made through an API process seen by every auth process (their
// per-process client caches), a sign-out seen everywhere, failed sign-ins counted together (an
// attacker spreading guesses over the processes gets no more), the refresh retry window and a
// signing-key rotation seen by every auth process, and the onboarding embed (frame cookies, CSRF,
// its steps and response mode) across processes. Each check addresses the processes
// directly, so none can pass by landing on the process that wrote.

const serial = gatewayAvailable() ? test.serial : test.serial.skip;
const FAILURES_PER_ACCOUNT = 3;
// Named here (not left to the kit's defaults) so the operator CLI below runs with the services' keys.
const SECRETS = {
  COOKIE_KEYS: 'gateway-shared-state-cookie-key-0123456789',
  ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
};
const gateway = gatewayAvailable()
  ? setUpTestGateway(test, {
      auth: 2,
      api: 2,
      env: { RATE_LIMITS: `sign-in-failures-account=${FAILURES_PER_ACCOUNT}/15m`, ...SECRETS },
    })
  : undefined;

const processes = () => ({ auth: gateway!.gateway.auth, api: gateway!.gateway.api });

async function userAndClient() {
  const knex = gateway!.database.db.knex;
  const user = await insertUser(knex);
  const client = await insertClient(knex, { ownerUserId: user.id, scopes: ['PROFILE_READ'] });
  return { user, client, apiKey: await insertApiKey(knex, user.id) };
}

const authorizeParams = (client: TestClient) => ({
  client_id: client.client.id,
  redirect_uri: client.redirectUri,
  scope: 'PROFILE_READ',
  state: randomBytes(8).toString('hex'),
  code_challenge: pkcePair().challenge,
});

/**
 * What one authorization request answers for a signed-in browser, asked of one auth process:
 * `code` (straight back to the client: consent remembered) or `consent` (the interaction asks).
 */
async function authorizeOn(browser: FlowBrowser, serverUrl: string, client: TestClient) {
  const response = await browser.request(authorizeUrl(serverUrl, authorizeParams(client)));
  await response.arrayBuffer();
  const location = new URL(response.headers.get('location') ?? '', serverUrl);
  if (location.href.startsWith(client.redirectUri) && location.searchParams.has('code')) return 'code';
  if (location.pathname.startsWith('/auth/interaction/')) return 'consent';
  return `${response.status} ${location.href}`;
}

serial(
  'consent remembered through one auth process holds on every one; a disconnect makes all ask again',
  async (t) => {
    const { user, client, apiKey } = await userAndClient();
    const { auth, api } = processes();
    const first = await authorizeInBrowser(
      gateway!.url,
      authorizeUrl(gateway!.url, authorizeParams(client)),
      {
        user,
      },
    );
    t.true(first.consentShown);
    t.is(first.outcome.kind, 'redirect');
    for (const process of auth)
      t.is(await authorizeOn(first.browser, process.url, client), 'code', process.name);

    const disconnected = await apiClient(api[1]!.url, { prefix: '/v2' })(
      'DELETE',
      `/me/connected-apps/${client.client.id}`,
      { token: apiKey },
    );
    t.is(disconnected.status, 204, JSON.stringify(disconnected.body));
    for (const process of auth)
      t.is(await authorizeOn(first.browser, process.url, client), 'consent', process.name);
  },
);

serial(
  'a token revoked at one auth process (RFC 7009) is refused by every API process on its next request',
  async (t) => {
    const { user, client } = await userAndClient();
    const { auth, api } = processes();
    const tokens = await issueTokens(gateway!.url, client, user, ['PROFILE_READ']);
    const calls = api.map((process) => apiClient(process.url, { prefix: '/v2' }));
    // Every API process has read (and may keep what it knows of) the token.
    for (const call of calls) t.is((await call('GET', '/me', { token: tokens.access_token })).status, 200);
    const revoked = await fetch(new URL('/v2/auth/oauth2/revoke', auth[1]!.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: client.client.id,
        client_secret: client.secret!,
        token: tokens.access_token,
      }),
    });
    t.is(revoked.status, 200);
    for (const [i, call] of calls.entries()) {
      t.is((await call('GET', '/me', { token: tokens.access_token })).status, 401, api[i]!.name);
    }
  },
);

serial(
  'a client secret revoked through an API process is refused at once by every auth process',
  async (t) => {
    const { user, client, apiKey } = await userAndClient();
    const { auth, api } = processes();
    let refreshToken = (await issueTokens(gateway!.url, client, user, ['PROFILE_READ'])).refresh_token;
    const refreshOn = async (serverUrl: string, secret: string) => {
      const response = await tokenRequest(serverUrl, {
        client_id: client.client.id,
        client_secret: secret,
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      });
      if (response.status === 200) refreshToken = String(response.body.refresh_token);
      return response;
    };
    // Both auth processes have authenticated the client with its first secret (and cached it).
    for (const process of auth)
      t.is((await refreshOn(process.url, client.secret!)).status, 200, process.name);

    const [first, second] = api.map((process) => apiClient(process.url, { prefix: '/v2' }));
    const created = await first!('POST', `/oauth-clients/${client.client.id}/secrets`, { token: apiKey });
    t.is(created.status, 201, JSON.stringify(created.body));
    const listed = await second!('GET', `/oauth-clients/${client.client.id}/secrets`, { token: apiKey });
    const oldest = listed.body.data[0].id;
    t.not(oldest, created.body.data.id);
    const revoked = await second!('DELETE', `/oauth-clients/${client.client.id}/secrets/${oldest}`, {
      token: apiKey,
    });
    t.is(revoked.status, 200, JSON.stringify(revoked.body));

    for (const process of auth) {
      const refused = await refreshOn(process.url, client.secret!);
      t.is(refused.status, 401, `${process.name}: ${JSON.stringify(refused.body)}`);
      t.is(refused.body.error, 'invalid_client');
      t.is((await refreshOn(process.url, created.body.data.secret)).status, 200, process.name);
    }
  },
);

serial('a sign-out through one auth process ends the session on every one', async (t) => {
  const { user, client } = await userAndClient();
  const { auth } = processes();
  const { browser } = await authorizeInBrowser(
    gateway!.url,
    authorizeUrl(gateway!.url, authorizeParams(client)),
    {
      user,
    },
  );
  const settingsOn = (serverUrl: string) => browser.request(new URL('/auth/settings', serverUrl));
  for (const process of auth) t.is((await settingsOn(process.url)).status, 200, process.name);

  const page = await (await settingsOn(auth[0]!.url)).text();
  const form = formOf(page, '/auth/settings/sign-out');
  t.truthy(form, 'the settings page has a sign-out form');
  const signedOut = await browser.request(new URL(form!.action, auth[1]!.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form!.hidden),
  });
  t.is(signedOut.status, 303);
  for (const process of auth) {
    const after = await settingsOn(process.url);
    t.is(after.status, 303, process.name);
    t.regex(after.headers.get('location') ?? '', /\/auth\/settings\/sign-in/);
  }
});

serial(
  'failed sign-ins are counted together: the account locks whichever process saw the guesses',
  async (t) => {
    const { user } = await userAndClient();
    const { auth } = processes();
    const signIn = async (serverUrl: string, password: string) => {
      const browser = new FlowBrowser(serverUrl);
      const page = await browser.request(new URL('/auth/settings/sign-in', serverUrl));
      const form = formOf(await page.text(), '/auth/settings/sign-in');
      if (!form) throw new Error(`no sign-in form on ${serverUrl} (${page.status})`);
      const response = await browser.request(new URL(form.action, serverUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form.hidden, email: user.email, password }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    // Alternating processes: one count for the account, not one per process.
    for (let i = 0; i < FAILURES_PER_ACCOUNT; i++) {
      t.is(await signIn(auth[i % 2]!.url, 'not the password'), 401, `guess ${i + 1}`);
    }
    for (const process of auth) t.is(await signIn(process.url, user.password), 429, process.name);
  },
);

serial('the onboarding embed runs with its steps spread over both auth processes', async (t) => {
  const parent = 'http://127.0.0.1:4555';
  const client = await createEmbedClient(gateway!.database.db.knex, parent);
  const pkce = pkcePair();
  const browser = new FlowBrowser(gateway!.url);
  const servers = new Set<string>();
  const request = browser.request.bind(browser);
  browser.request = async (...args) => {
    const response = await request(...args);
    servers.add(servedBy(gateway!.gateway, response));
    return response;
  };
  const page = async (result: Awaited<ReturnType<FlowBrowser['open']>>) => {
    if (result.kind !== 'page') throw new Error(`expected a page, got a redirect to ${result.url.href}`);
    return result;
  };
  const who = randomBytes(6).toString('hex');
  const signUp = await page(
    await browser.open(
      embedUrl(gateway!.url, { client, parentOrigin: parent, challenge: pkce.challenge, state: who }),
    ),
  );
  const profile = await page(
    await browser.submit(signUp, '/signup', {
      name: 'Ada Lovelace',
      email: `embed-${who}@example.com`,
      username: `ada-${who}`,
      password: 'correct horse battery',
    }),
  );
  const calendar = await page(
    await browser.submit(profile, '/profile', {
      name: 'Ada Lovelace',
      username: `ada-${who}`,
      time_zone: 'UTC',
      week_start: 'Monday',
    }),
  );
  const consent = await page(await browser.submit(calendar, '/calendar', { action: 'skip' }));
  const done = await page(await browser.submit(consent, '/consent', { decision: 'allow' }));
  const message = pageMessage(done.html);
  t.is(message?.type, 'authorization:allowed', done.html);
  t.is(message?.state, who);
  t.deepEqual([...servers].sort(), ['auth-1', 'auth-2']);
  const tokens = await tokenRequest(gateway!.url, {
    client_id: client.client.id,
    grant_type: 'authorization_code',
    code: String(message?.code),
    redirect_uri: client.redirectUri,
    code_verifier: pkce.verifier,
  });
  t.is(tokens.status, 200, JSON.stringify(tokens.body));
});

serial(
  'the refresh retry window is one window: a retry at the other auth process gets the same tokens, concurrent uses on both agree',
  async (t) => {
    const { user, client } = await userAndClient();
    const { auth, api } = processes();
    const refreshOn = (serverUrl: string, refreshToken: string) =>
      tokenRequest(serverUrl, {
        client_id: client.client.id,
        client_secret: client.secret!,
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      });
    const issued = await issueTokens(gateway!.url, client, user, ['PROFILE_READ']);

    // A lost response retried at the other process.
    const first = await refreshOn(auth[0]!.url, issued.refresh_token);
    t.is(first.status, 200, JSON.stringify(first.body));
    const retried = await refreshOn(auth[1]!.url, issued.refresh_token);
    t.is(retried.status, 200, JSON.stringify(retried.body));
    t.is(retried.body.access_token, first.body.access_token);
    t.is(retried.body.refresh_token, first.body.refresh_token);

    // Concurrent uses of the successor, alternating processes: one answer, the grant kept.
    const successor = String(first.body.refresh_token);
    const racing = await Promise.all(
      Array.from({ length: 20 }, (_, i) => refreshOn(auth[i % 2]!.url, successor)),
    );
    t.deepEqual(
      racing.map((response) => response.status),
      racing.map(() => 200),
      JSON.stringify(racing.find((response) => response.status !== 200)?.body),
    );
    t.is(new Set(racing.map((response) => response.body.access_token)).size, 1);
    t.is(new Set(racing.map((response) => response.body.refresh_token)).size, 1);
    for (const process of api) {
      const me = await apiClient(process.url, { prefix: '/v2' })('GET', '/me', {
        token: String(racing[0]!.body.access_token),
      });
      t.is(me.status, 200, process.name);
    }
    const next = await refreshOn(auth[1]!.url, String(racing[0]!.body.refresh_token));
    t.is(next.status, 200, `the grant was not revoked: ${JSON.stringify(next.body)}`);
  },
);

serial(
  'rotate-keys beside N auth processes: each signs with the new key at once and publishes both',
  async (t) => {
    const knex = gateway!.database.db.knex;
    const user = await insertUser(knex);
    const client = await insertClient(knex, { ownerUserId: user.id, scopes: ['openid', 'PROFILE_READ'] });
    const { auth } = processes();
    const kids = async (serverUrl: string) =>
      (
        (await (await fetch(new URL('/v2/auth/oauth2/jwks', serverUrl))).json()) as {
          keys: Array<{ kid: string }>;
        }
      ).keys.map((key) => key.kid);
    // The ID token is signed where the code is exchanged: the flow goes through the gateway, the
    // exchange to the process asked.
    const idTokenKid = async (serverUrl: string) => {
      const pkce = pkcePair();
      const { code } = await obtainCode(
        gateway!.url,
        { ...authorizeParams(client), scope: 'openid PROFILE_READ', code_challenge: pkce.challenge },
        { user },
      );
      const tokens = await tokenRequest(serverUrl, {
        client_id: client.client.id,
        client_secret: client.secret!,
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirectUri,
        code_verifier: pkce.verifier,
      });
      const header = String(tokens.body.id_token).split('.')[0]!;
      return (JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string }).kid;
    };
    // Every process has loaded (and keeps) the first key.
    const before = await kids(auth[0]!.url);
    t.is(before.length, 1);
    for (const process of auth) {
      t.deepEqual(await kids(process.url), before, process.name);
      t.is(await idTokenKid(process.url), before[0]!, process.name);
    }

    const rotated = await runToEnd(
      'services/launcher/src/cli.ts',
      ['rotate-keys'],
      childEnv({ DATABASE_URL: gateway!.database.url, REDIS_URL: gateway!.redisUrl, ...SECRETS }),
    );
    t.is(rotated.code, 0, rotated.output);
    const { kid } = JSON.parse(rotated.output.trim()) as { kid: string };
    for (const process of auth) {
      t.deepEqual(await kids(process.url), [kid, before[0]!], process.name);
      t.is(await idTokenKid(process.url), kid, process.name);
    }
  },
);
