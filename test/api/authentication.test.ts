import { defineRoute } from '@sched/api/routing/route';
import { newClientSecret } from '@sched/kit/secrets';
import test, { type ExecutionContext } from 'ava';
import { z } from 'zod';
import { createTestAccessToken } from '../support/tokens.ts';
import { setUpProbeApi } from './helpers/second-api.ts';
import { setUpWorld, buildScene } from '../support/world.ts';
import { insertOrganization, insertUser, type TestUser } from '../support/factories.ts';
import { type ApiResponse, apiClient } from '../support/http.ts';

const { system, call } = setUpWorld(test);
let user: TestUser;
let admin: TestUser;

/** The probes answer the caller as the mount made it: its kind and the fields of that kind. */
const callerShape = z.looseObject({ kind: z.enum(['api-key', 'oauth', 'client-secret']) });

const probeRoutes = [
  defineRoute({
    method: 'GET',
    path: '/probe/clients/:clientId/whoami',
    summary: 'client-secret probe',
    tags: ['Probe'],
    auth: 'client-secret',
    params: z.strictObject({ clientId: z.string() }),
    response: { status: 200, description: 'the caller', schema: callerShape },
    handler: async ({ caller }) => ({ data: caller }),
  }),
  defineRoute({
    method: 'GET',
    path: '/probe/public',
    summary: 'public probe',
    tags: ['Probe'],
    auth: 'public',
    response: { status: 200, description: 'the caller, if any', schema: callerShape.nullable() },
    handler: async ({ caller }) => ({ data: caller ?? null }),
  }),
];

/** An app with declarations of this test's own: a client-secret route and a public route. */
const probe = setUpProbeApi(test, system, probeRoutes);
const probeCall = apiClient(() => probe.url);

test.before(async () => {
  user = await insertUser(system.stores.db.knex);
  admin = await insertUser(system.stores.db.knex, { serviceAdmin: true });
});

const token = (options: { userId?: number; scopes?: string[]; legacy?: boolean; expiresIn?: number } = {}) =>
  createTestAccessToken(system.stores, { userId: user.id, ...options });

/** The challenge with the API's protected resource metadata (RFC 9728), as every 401 and 403 carries it. */
const withMetadata = (challenge: string): string => {
  const parameter = `resource_metadata="${system.url}/.well-known/oauth-protected-resource"`;
  return challenge === 'Bearer' ? `Bearer ${parameter}` : `${challenge}, ${parameter}`;
};

function unauthorized(t: ExecutionContext, response: ApiResponse, challenge: string) {
  t.is(response.status, 401, JSON.stringify(response.body));
  t.is(response.body.status, 'error');
  t.is(response.body.error.code, 'Unauthorized');
  t.is(response.headers.get('www-authenticate'), withMetadata(challenge));
  t.truthy(response.headers.get('x-request-id'));
}

test('no credential: 401 with WWW-Authenticate: Bearer', async (t) => {
  unauthorized(t, await call('GET', '/v2/me'), 'Bearer');
});

test('a malformed Authorization header: 401 invalid_request', async (t) => {
  for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', 'svc_abc']) {
    unauthorized(
      t,
      await call('GET', '/v2/me', { headers: { authorization: header } }),
      'Bearer error="invalid_request"',
    );
  }
});

test('unknown API key, unknown, expired or orphaned token: 401 invalid_token', async (t) => {
  const challenge = 'Bearer error="invalid_token"';
  unauthorized(t, await call('GET', '/v2/me', { token: `svc_${'A'.repeat(43)}` }), challenge);
  unauthorized(t, await call('GET', '/v2/me', { token: 'no-such-token-0123456789' }), challenge);
  unauthorized(
    t,
    await call('GET', '/v2/me', { token: await token({ scopes: ['PROFILE_READ'], expiresIn: -5 }) }),
    challenge,
  );
  // A record whose exp has passed although the store still holds it.
  const stale = 'stale-token-0123456789abcdef';
  const now = Math.floor(Date.now() / 1000);
  await system.stores.tokenStore.upsert(
    'AccessToken',
    stale,
    {
      kind: 'AccessToken',
      jti: stale,
      accountId: String(user.id),
      clientId: 'c',
      scope: 'PROFILE_READ',
      iat: now - 100,
      exp: now - 1,
      grantId: 'g-stale',
    },
    300,
  );
  unauthorized(t, await call('GET', '/v2/me', { token: stale }), challenge);
  // The user behind the token no longer exists.
  unauthorized(
    t,
    await call('GET', '/v2/me', { token: await token({ userId: 987654321, scopes: ['PROFILE_READ'] }) }),
    challenge,
  );
});

test('API key and OAuth token with PROFILE_READ read /v2/me', async (t) => {
  for (const credential of [user.apiKey, await token({ scopes: ['PROFILE_READ'] })]) {
    const response = await call('GET', '/v2/me', { token: credential });
    t.is(response.status, 200);
    t.is(response.body.status, 'success');
    t.is(response.body.data.id, user.id);
    t.deepEqual(response.body.data.bookingLimits, {
      perDay: null,
      perWeek: null,
      perMonth: null,
      perYear: null,
    });
  }
});

test('a missing scope: 403 with the exact message and insufficient_scope challenge', async (t) => {
  const response = await call('GET', '/v2/me', {
    token: await token({ scopes: ['PROFILE_WRITE', 'BOOKING_READ'] }),
  });
  t.is(response.status, 403);
  t.is(
    response.body.error.message,
    'insufficient_scope: token does not have the required scopes. Required: PROFILE_READ. Token has: PROFILE_WRITE, BOOKING_READ',
  );
  t.is(
    response.headers.get('www-authenticate'),
    withMetadata('Bearer error="insufficient_scope", scope="PROFILE_READ"'),
  );
  const none = await call('PATCH', '/v2/me', { token: await token({ scopes: [] }), body: { name: 'x' } });
  t.is(
    none.body.error.message,
    'insufficient_scope: token does not have the required scopes. Required: PROFILE_WRITE. Token has: ',
  );
});

test('ORG_ scopes grant the matching TEAM_ scope, not the other way round; TEAM_ covers one team on both paths', async (t) => {
  const scene = await buildScene(system.stores.db.knex, { member: { org: 'MEMBER', team: 'MEMBER' } });
  const orgToken = await token({ userId: scene.users.member.id, scopes: ['ORG_PROFILE_READ'] });
  const teamToken = await token({ userId: scene.users.member.id, scopes: ['TEAM_PROFILE_READ'] });
  t.is((await call('GET', '/v2/teams', { token: orgToken })).status, 200);
  t.is((await call('GET', `/v2/teams/${scene.teamId}`, { token: orgToken })).status, 200);
  t.is(
    (await call('GET', `/v2/organizations/${scene.orgId}/teams/${scene.teamId}`, { token: orgToken })).status,
    200,
  );
  t.is((await call('GET', `/v2/organizations/${scene.orgId}/teams`, { token: orgToken })).status, 200);
  // A team scope covers the routes that target one team, under /v2/teams and under the organization.
  t.is((await call('GET', `/v2/teams/${scene.teamId}`, { token: teamToken })).status, 200);
  t.is(
    (await call('GET', `/v2/organizations/${scene.orgId}/teams/${scene.teamId}`, { token: teamToken }))
      .status,
    200,
  );
  const refused = await call('GET', `/v2/organizations/${scene.orgId}/teams`, { token: teamToken });
  t.is(refused.status, 403);
  t.is(
    refused.body.error.message,
    'insufficient_scope: token does not have the required scopes. Required: ORG_PROFILE_READ. Token has: TEAM_PROFILE_READ',
  );
});

test('endpoints naming no scope refuse OAuth tokens (legacy ones: next test)', async (t) => {
  const scene = await buildScene(system.stores.db.knex, { owner: { org: 'OWNER' } });
  const everything = await token({
    userId: scene.users.owner.id,
    scopes: ['ORG_MEMBERSHIP_WRITE', 'ORG_PROFILE_WRITE', 'PROFILE_WRITE', 'PROFILE_READ'],
  });
  for (const [method, path] of [
    ['GET', '/v2/api-keys'],
    ['POST', '/v2/api-keys'],
    ['GET', `/v2/organizations/${scene.orgId}/roles`],
    ['POST', '/v2/admin/organizations'],
  ] as const) {
    const response = await call(method, path, { token: everything });
    t.is(response.status, 403, `${method} ${path}`);
    t.is(
      response.body.error.message,
      'insufficient_scope: this endpoint is not available for third-party OAuth tokens',
    );
    t.is(response.headers.get('www-authenticate'), withMetadata('Bearer error="insufficient_scope"'));
  }
});

test('legacy tokens skip scope checks; endpoints naming no scope refuse them like any OAuth token', async (t) => {
  const scene = await buildScene(system.stores.db.knex, { owner: { org: 'OWNER' } });
  const legacy = await token({ userId: scene.users.owner.id, legacy: true });
  t.is((await call('GET', '/v2/me', { token: legacy })).status, 200);
  t.is((await call('PATCH', '/v2/me', { token: legacy, body: { name: 'Legacy' } })).status, 200);
  t.is((await call('GET', `/v2/organizations/${scene.orgId}/memberships`, { token: legacy })).status, 200);
  // Roles and permissions, API keys and the admin API are not reachable with OAuth tokens; a legacy
  // token is one.
  for (const [method, path, body] of [
    ['GET', `/v2/organizations/${scene.orgId}/roles`, undefined],
    ['POST', `/v2/organizations/${scene.orgId}/roles`, { name: 'Legacy made' }],
    ['GET', '/v2/api-keys', undefined],
    ['POST', '/v2/admin/organizations', {}],
  ] as const) {
    const response = await call(method, path, { token: legacy, body });
    t.is(response.status, 403, path);
    t.is(
      response.body.error.message,
      'insufficient_scope: this endpoint is not available for third-party OAuth tokens',
    );
    t.is(response.headers.get('www-authenticate'), withMetadata('Bearer error="insufficient_scope"'));
  }
});

test('the admin API: service administrators only', async (t) => {
  const refused = await call('POST', '/v2/admin/users', {
    token: user.apiKey,
    body: { email: 'nobody@example.test' },
  });
  t.is(refused.status, 403);
  t.regex(refused.body.error.message, /service administrators/);
  const created = await call('POST', '/v2/admin/users', {
    token: admin.apiKey,
    body: {
      email: 'Created@Example.test',
      password: 'a long password',
      name: 'Created',
      timeZone: 'Europe/Berlin',
    },
  });
  t.is(created.status, 201);
  t.is(created.body.data.user.email, 'Created@Example.test');
  t.is(created.body.data.user.timeZone, 'Europe/Berlin');
  t.regex(created.body.data.apiKey, /^svc_[A-Za-z0-9_-]{43}$/);
  const me = await call('GET', '/v2/me', { token: created.body.data.apiKey });
  t.is(me.status, 200);
  t.is(me.body.data.id, created.body.data.user.id);
  t.is(typeof me.body.data.defaultScheduleId, 'number');
  const again = await call('POST', '/v2/admin/users', {
    token: admin.apiKey,
    body: { email: 'created@example.test' },
  });
  t.is(again.status, 409);
});

test('service administrators have no implicit access to organizations', async (t) => {
  const orgId = await insertOrganization(system.stores.db.knex);
  const response = await call('GET', `/v2/organizations/${orgId}/memberships`, { token: admin.apiKey });
  t.is(response.status, 403);
  t.regex(response.body.error.message, /service administrators have no implicit organization access/);
});

test('an API key records when it was last used', async (t) => {
  const owner = await insertUser(system.stores.db.knex);
  t.is((await call('GET', '/v2/me', { token: owner.apiKey })).status, 200);
  let lastUsedAt: string | null = null;
  for (let i = 0; i < 50 && lastUsedAt === null; i++) {
    const list = await call('GET', '/v2/api-keys', { token: owner.apiKey });
    lastUsedAt = list.body.data[0].lastUsedAt;
    if (lastUsedAt === null) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.truthy(lastUsedAt);
});

async function insertClient(
  secrets: number,
): Promise<{ clientId: string; plain: string[]; secretIds: number[] }> {
  const knex = system.stores.db.knex;
  const clientId = `client-${Math.random().toString(36).slice(2)}`;
  await knex('oauth_clients').insert({
    id: clientId,
    owner_user_id: user.id,
    name: 'Probe client',
    scopes: ['PROFILE_READ'],
  });
  const plain: string[] = [];
  const secretIds: number[] = [];
  for (let i = 0; i < secrets; i++) {
    const secret = newClientSecret();
    const [row] = (await knex('oauth_client_secrets')
      .insert({ client_id: clientId, secret_hash: secret.hash, hint: secret.hint })
      .returning('id')) as Array<{ id: number }>;
    plain.push(secret.plain);
    secretIds.push(Number(row!.id));
  }
  return { clientId, plain, secretIds };
}

test('x-svc-secret-key: any active secret of the client in the path; missing, wrong, revoked or another client’s: 401', async (t) => {
  const client = await insertClient(2);
  const other = await insertClient(1);
  const path = `/v2/probe/clients/${client.clientId}/whoami`;
  for (const secret of client.plain) {
    const ok = await probeCall('GET', path, { headers: { 'x-svc-secret-key': secret } });
    t.is(ok.status, 200);
    t.deepEqual(ok.body.data, { kind: 'client-secret', clientId: client.clientId });
  }
  t.is((await probeCall('GET', path)).status, 401);
  t.is((await probeCall('GET', path, { headers: { 'x-svc-secret-key': 'wrong' } })).status, 401);
  t.is((await probeCall('GET', path, { headers: { 'x-svc-secret-key': other.plain[0]! } })).status, 401);
  t.is(
    (
      await probeCall('GET', '/v2/probe/clients/no-such-client/whoami', {
        headers: { 'x-svc-secret-key': client.plain[0]! },
      })
    ).status,
    401,
  );
  await system.stores.db
    .knex('oauth_client_secrets')
    .where({ id: client.secretIds[0] })
    .update({ revoked_at: new Date() });
  t.is((await probeCall('GET', path, { headers: { 'x-svc-secret-key': client.plain[0]! } })).status, 401);
  t.is((await probeCall('GET', path, { headers: { 'x-svc-secret-key': client.plain[1]! } })).status, 200);
});

test('public routes: a credential is optional; a valid one is the caller, an invalid one is ignored', async (t) => {
  t.is((await probeCall('GET', '/v2/probe/public')).body.data, null);
  const withToken = await probeCall('GET', '/v2/probe/public', { token: await token({ scopes: [] }) });
  t.is(withToken.status, 200);
  t.is(withToken.body.data.kind, 'oauth');
  t.is(withToken.body.data.userId, user.id);
  const withKey = await probeCall('GET', '/v2/probe/public', { token: user.apiKey });
  t.is(withKey.body.data.kind, 'api-key');
  const invalid = await probeCall('GET', '/v2/probe/public', { token: 'not-a-token' });
  t.is(invalid.status, 200);
  t.is(invalid.body.data, null);
});
