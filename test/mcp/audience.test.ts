import { randomBytes } from 'node:crypto';
import type { AccessTokenPayload } from '@sched/db/token-store/types';
import test from 'ava';
import { insertClient, insertUser, type TestClient, type TestUser } from '../support/factories.ts';
import { callToolRaw } from '../support/mcp.ts';
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

const { system, call } = setUpWorld(test);
let user: TestUser;
let agent: TestClient;
const PASSWORD = 'correct horse battery staple';
const mcpResource = () => `${system.url}/mcp`;
const mcpMetadata = () => `${system.url}/.well-known/oauth-protected-resource/mcp`;
const apiMetadata = () => `${system.url}/.well-known/oauth-protected-resource`;

test.before(async () => {
  const knex = system.stores.db.knex;
  user = await insertUser(knex, { password: PASSWORD });
  // A client registered the normal way (settings / API) and approved: public, loopback redirect.
  agent = await insertClient(knex, {
    type: 'public',
    redirectUris: ['http://127.0.0.1/callback'],
    scopes: ['PROFILE_READ', 'EVENT_TYPE_READ', 'SCHEDULE_READ', 'BOOKING_READ', 'BOOKING_WRITE'],
  });
});

interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/** Authorization (PKCE) and code exchange; `resource` on both unless `tokenResource` says otherwise. */
async function authorize(
  extra: Record<string, string>,
  options: { browser?: FlowBrowser; tokenResource?: string | null } = {},
): Promise<{ status: number; body: Record<string, unknown>; browser: FlowBrowser }> {
  const pkce = pkcePair();
  const { code, browser } = await obtainCode(
    system.url,
    {
      client_id: agent.client.id,
      redirect_uri: 'http://127.0.0.1:49152/callback',
      state: randomBytes(8).toString('hex'),
      code_challenge: pkce.challenge,
      ...extra,
    },
    {
      user: { email: user.email, password: PASSWORD },
      ...(options.browser ? { browser: options.browser } : {}),
    },
  );
  const resource = options.tokenResource === undefined ? extra.resource : options.tokenResource;
  const response = await tokenRequest(system.url, {
    ...clientCredentials(agent),
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1:49152/callback',
    code_verifier: pkce.verifier,
    ...(resource ? { resource } : {}),
  });
  return { status: response.status, body: response.body, browser };
}

async function tokens(
  extra: Record<string, string>,
  browser?: FlowBrowser,
): Promise<Tokens & { browser: FlowBrowser }> {
  const answer = await authorize(extra, browser ? { browser } : {});
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
  return { ...(answer.body as unknown as Tokens), browser: answer.browser };
}

const record = (token: string) => system.stores.tokenStore.find<AccessTokenPayload>('AccessToken', token);

test('protected resource metadata (RFC 9728) for /mcp and for the API', async (t) => {
  for (const [path, resource] of [
    ['/.well-known/oauth-protected-resource/mcp', mcpResource()],
    ['/.well-known/oauth-protected-resource', system.url],
  ] as const) {
    const response = await fetch(`${system.url}${path}`, { headers: { origin: 'https://agent.example' } });
    t.is(response.status, 200, path);
    t.is(response.headers.get('access-control-allow-origin'), '*');
    t.deepEqual(await response.json(), {
      resource,
      authorization_servers: [system.url],
      scopes_supported:
        resource === system.url
          ? ['PROFILE_READ', 'EVENT_TYPE_READ', 'SCHEDULE_READ', 'BOOKING_READ', 'APPS_READ']
          : ['PROFILE_READ', 'EVENT_TYPE_READ', 'SCHEDULE_READ', 'BOOKING_READ'],
      bearer_methods_supported: ['header'],
    });
  }
});

test('authorization server metadata: S256, public clients, iss in the response', async (t) => {
  const metadata = await (await fetch(`${system.url}/.well-known/oauth-authorization-server`)).json();
  t.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
  t.true(metadata.token_endpoint_auth_methods_supported.includes('none'));
  t.true(metadata.authorization_response_iss_parameter_supported);
});

test('every 401 of /mcp and /v2 names the resource metadata', async (t) => {
  const mcp = await callToolRaw(`${system.url}/mcp`, 'not-a-token', 'get_me');
  t.is(mcp.status, 401);
  t.is(
    mcp.headers.get('www-authenticate'),
    `Bearer error="invalid_token", resource_metadata="${mcpMetadata()}"`,
  );
  const bare = await fetch(`${system.url}/mcp`, { method: 'POST' });
  t.is(bare.status, 401);
  t.is(bare.headers.get('www-authenticate'), `Bearer resource_metadata="${mcpMetadata()}"`);
  const api = await call('GET', '/v2/me');
  t.is(api.headers.get('www-authenticate'), `Bearer resource_metadata="${apiMetadata()}"`);
});

test('a token for /mcp: audience recorded, accepted at /mcp only; without scope it gets the metadata scopes', async (t) => {
  const granted = await tokens({ resource: mcpResource() });
  t.is(granted.scope, 'PROFILE_READ EVENT_TYPE_READ SCHEDULE_READ BOOKING_READ');
  t.is((await record(granted.access_token))?.aud, mcpResource());
  const atMcp = await callToolRaw(`${system.url}/mcp`, granted.access_token, 'get_me');
  t.is(atMcp.status, 200);
  t.is(atMcp.body.result.structuredContent.data.id, user.id);
  const atApi = await call('GET', '/v2/me', { token: granted.access_token });
  t.is(atApi.status, 401);
  t.is(atApi.body.error.message, 'The access token was issued for another resource');
  t.is(
    atApi.headers.get('www-authenticate'),
    `Bearer error="invalid_token", resource_metadata="${apiMetadata()}"`,
  );
});

test('a token for the API (or for no resource) is refused at /mcp', async (t) => {
  const cases: Array<Record<string, string>> = [{ resource: system.url }, { resource: `${system.url}/` }, {}];
  for (const extra of cases) {
    const granted = await tokens({ scope: 'PROFILE_READ', ...extra });
    t.is((await call('GET', '/v2/me', { token: granted.access_token })).status, 200, JSON.stringify(extra));
    const atMcp = await callToolRaw(`${system.url}/mcp`, granted.access_token, 'get_me');
    t.is(atMcp.status, 401, JSON.stringify(extra));
    t.is((await record(granted.access_token))?.aud, extra['resource'] === undefined ? undefined : system.url);
  }
});

test('API keys are not MCP credentials', async (t) => {
  const answer = await callToolRaw(`${system.url}/mcp`, user.apiKey, 'get_me');
  t.is(answer.status, 401);
});

test('a resource other than the two: invalid_target, on the authorization and the token request', async (t) => {
  const { outcome } = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, {
      client_id: agent.client.id,
      redirect_uri: 'http://127.0.0.1:49152/callback',
      state: 's1',
      code_challenge: pkcePair().challenge,
      scope: 'PROFILE_READ',
      resource: 'https://elsewhere.example/mcp',
    }),
    { user: { email: user.email, password: PASSWORD } },
  );
  t.is(outcome.kind, 'redirect');
  t.is(outcome.url.searchParams.get('error'), 'invalid_target');
  t.is(outcome.url.searchParams.get('state'), 's1');

  const exchanged = await authorize(
    { scope: 'PROFILE_READ', resource: mcpResource() },
    { tokenResource: system.url },
  );
  t.is(exchanged.status, 400);
  t.is(exchanged.body.error, 'invalid_target');
});

test("the token request may omit resource: the token keeps the authorization's; a refresh keeps it too", async (t) => {
  const first = await authorize({ resource: mcpResource(), scope: 'PROFILE_READ' }, { tokenResource: null });
  t.is(first.status, 200);
  const granted = first.body as unknown as Tokens;
  t.is((await record(granted.access_token))?.aud, mcpResource());
  const refreshed = await tokenRequest(system.url, {
    ...clientCredentials(agent),
    grant_type: 'refresh_token',
    refresh_token: granted.refresh_token,
  });
  t.is(refreshed.status, 200, JSON.stringify(refreshed.body));
  const next = refreshed.body as unknown as Tokens;
  t.is(next.scope, granted.scope, 'the same scopes');
  t.is((await record(next.access_token))?.aud, mcpResource());
  t.is((await callToolRaw(`${system.url}/mcp`, next.access_token, 'get_me')).status, 200);
  t.is((await call('GET', '/v2/me', { token: next.access_token })).status, 401);
});

test('step-up: a new authorization for more scopes yields the earlier scopes and the new ones', async (t) => {
  const stepper = await insertUser(system.stores.db.knex, { password: PASSWORD });
  const browser = new FlowBrowser(system.url);
  const signIn = { email: stepper.email, password: PASSWORD };
  const pkce = pkcePair();
  const base = {
    client_id: agent.client.id,
    redirect_uri: 'http://127.0.0.1:49152/callback',
    resource: mcpResource(),
  };
  const read = await obtainCode(
    system.url,
    { ...base, state: 'a', code_challenge: pkce.challenge, scope: 'PROFILE_READ BOOKING_READ' },
    { user: signIn, browser },
  );
  const readTokens = await tokenRequest(system.url, {
    ...clientCredentials(agent),
    grant_type: 'authorization_code',
    code: read.code,
    redirect_uri: base.redirect_uri,
    code_verifier: pkce.verifier,
  });
  t.is(readTokens.body.scope, 'PROFILE_READ BOOKING_READ');
  const readToken = String(readTokens.body.access_token);
  const refused = await callToolRaw(`${system.url}/mcp`, readToken, 'create_booking', {});
  t.is(refused.status, 403);
  const wanted = /scope="([^"]+)"/.exec(refused.headers.get('www-authenticate') ?? '')?.[1];
  t.is(wanted, 'BOOKING_WRITE');

  const pkce2 = pkcePair();
  const { outcome, consentShown } = await authorizeInBrowser(
    system.url,
    authorizeUrl(system.url, { ...base, state: 'b', code_challenge: pkce2.challenge, scope: wanted! }),
    { user: signIn, browser },
  );
  t.true(consentShown, 'the new scope is asked for');
  t.is(outcome.kind, 'redirect');
  const code = outcome.url.searchParams.get('code')!;
  const writeTokens = await tokenRequest(system.url, {
    ...clientCredentials(agent),
    grant_type: 'authorization_code',
    code,
    redirect_uri: base.redirect_uri,
    code_verifier: pkce2.verifier,
  });
  t.is(writeTokens.status, 200, JSON.stringify(writeTokens.body));
  t.deepEqual(String(writeTokens.body.scope).split(' ').sort(), [
    'BOOKING_READ',
    'BOOKING_WRITE',
    'PROFILE_READ',
  ]);
  const token = String(writeTokens.body.access_token);
  t.is((await callToolRaw(`${system.url}/mcp`, token, 'get_me')).status, 200);
  const create = await callToolRaw(`${system.url}/mcp`, token, 'create_booking', {});
  t.is(create.status, 200, 'past the scope check (a tool error for the empty input)');
  t.true(create.body.result.isError);
});
