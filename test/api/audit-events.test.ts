import test from 'ava';
import { adminAuditEvents, type AuditEventOutput } from '../support/audit.ts';
import { insertUser } from '../support/factories.ts';
import { createTestAccessToken } from '../support/tokens.ts';
import { buildScene, setUpWorld } from '../support/world.ts';

/**
 * The audit log: changes write events with actor, target, before/after, request id and address, in
 * the transaction of the change; never a secret. `GET /v2/admin/audit-events` (service
 * administrators: filters, cursor paging) and `GET /v2/organizations/{orgId}/audit-events` (that
 * organization's events, ADMIN or OWNER; no OAuth tokens).
 */

const { system, call, knex, admin } = setUpWorld(test);
const ADMIN_PATH = '/v2/admin/audit-events';

type Event = AuditEventOutput;

const events = (query: string): Promise<Event[]> => adminAuditEvents({ call, admin }, query);

const apiKeyIdOf = async (userId: number): Promise<number> =>
  Number((await knex()('api_keys').where({ user_id: userId }).orderBy('id').first('id')).id);

test('an API key created and revoked: events with actor, target, before/after, request id and address, never the key', async (t) => {
  const owner = await insertUser(knex());
  const made = await call('POST', '/v2/api-keys', {
    token: owner.apiKey,
    headers: { 'x-request-id': 'audit-test-create-key' },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  const plain = made.body.data.apiKey ?? made.body.data.key;
  const [created] = await events(`actor=${owner.id}&action=api_key.created`);
  t.like(created, {
    action: 'api_key.created',
    actor: { type: 'api_key', userId: owner.id, apiKeyId: await apiKeyIdOf(owner.id), clientId: null },
    target: { type: 'api_key', id: String(made.body.data.id) },
    before: null,
    requestId: 'audit-test-create-key',
  });
  t.truthy(created!.ipAddress);
  t.deepEqual(created!.after, { userId: owner.id, hint: made.body.data.hint ?? String(plain).slice(-4) });
  // The actor as it acted: the kind, the key used; an OAuth client by its id.
  const keyId = await apiKeyIdOf(owner.id);
  const byKey = await events(`actorType=api_key&actorApiKeyId=${keyId}&action=api_key.created`);
  t.deepEqual(
    byKey.map((event) => event.id),
    [created!.id],
  );
  t.deepEqual(await events(`actor=${owner.id}&actorType=user&action=api_key.created`), []);
  t.deepEqual(await events(`actorClientId=no-such-client&actor=${owner.id}`), []);
  const refused = await call('GET', `${ADMIN_PATH}?actorType=robot`, { token: admin.apiKey });
  t.is(refused.status, 400);

  const revoked = await call('DELETE', `/v2/api-keys/${made.body.data.id}`, { token: owner.apiKey });
  t.is(revoked.status, 200, JSON.stringify(revoked.body));
  const [event] = await events(`targetType=api_key&targetId=${made.body.data.id}&action=api_key.revoked`);
  t.like(event, { before: { revoked: false }, after: { revoked: true }, actor: { userId: owner.id } });

  const everything = JSON.stringify(await events(`actor=${owner.id}&take=250`));
  t.false(everything.includes(plain), 'the key never appears');
  const hashes = (await knex()('api_keys').where({ user_id: owner.id }).select('key_hash')) as Array<{
    key_hash: string;
  }>;
  for (const { key_hash } of hashes) t.false(everything.includes(key_hash), 'nor its hash');
});

test('an OAuth client and its secrets: events without the secret; a refused change writes no event', async (t) => {
  const owner = await insertUser(knex());
  const made = await call('POST', '/v2/oauth-clients', {
    token: owner.apiKey,
    body: { name: 'Audited app', redirectUris: ['https://app.example.com/cb'], scopes: ['PROFILE_READ'] },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  const clientId = made.body.data.id as string;
  const secret = made.body.data.secret as string;
  const second = await call('POST', `/v2/oauth-clients/${clientId}/secrets`, { token: owner.apiKey });
  t.is(second.status, 201, JSON.stringify(second.body));
  // A third active secret is refused inside the transaction: no event for it.
  const third = await call('POST', `/v2/oauth-clients/${clientId}/secrets`, { token: owner.apiKey });
  t.is(third.status, 400);
  const list = await events(`targetType=oauth_client&targetId=${clientId}`);
  t.deepEqual(
    list.map((event) => event.action),
    ['oauth_client.secret_created', 'oauth_client.created'],
  );
  t.like(list[1], { actor: { type: 'api_key', userId: owner.id }, after: { name: 'Audited app' } });
  const text = JSON.stringify(list);
  t.false(text.includes(secret));
  t.false(text.includes(second.body.data.secret));
});

test('filters (time range) and cursor paging walk every event once, newest first', async (t) => {
  const owner = await insertUser(knex());
  const start = new Date(Date.now() - 1000).toISOString();
  for (let i = 0; i < 5; i++) t.is((await call('POST', '/v2/api-keys', { token: owner.apiKey })).status, 201);
  const all = await events(`actor=${owner.id}&action=api_key.created&from=${encodeURIComponent(start)}`);
  t.is(all.length, 5);
  const seen: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 10; pages++) {
    const answer: { status: number; body: { data: Event[]; pagination: { nextCursor: string | null } } } =
      await call('GET', `${ADMIN_PATH}?actor=${owner.id}&take=2${cursor ? `&cursor=${cursor}` : ''}`, {
        token: admin.apiKey,
      });
    t.is(answer.status, 200);
    seen.push(...answer.body.data.map((event: Event) => event.id));
    cursor = answer.body.pagination.nextCursor;
    if (!cursor) break;
  }
  t.deepEqual(
    seen,
    all.map((event) => event.id),
  );
  t.deepEqual(await events(`actor=${owner.id}&to=${encodeURIComponent(start)}`), []);
  const bad = await call('GET', `${ADMIN_PATH}?cursor=nonsense`, { token: admin.apiKey });
  t.is(bad.status, 400);
  t.is((await call('GET', `${ADMIN_PATH}?take=251`, { token: admin.apiKey })).status, 400);
  const someone = await insertUser(knex());
  t.is((await call('GET', ADMIN_PATH, { token: someone.apiKey })).status, 403);
});

test("organization events: its admins see them, not another organization's; members 403; OAuth tokens 403", async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER' },
    admin: { org: 'ADMIN' },
    member: { org: 'MEMBER' },
  });
  const other = await buildScene(knex(), { owner: { org: 'OWNER' } });
  const body = (name: string, organizationId: number) => ({
    name,
    redirectUris: ['https://org.example.com/cb'],
    scopes: ['PROFILE_READ'],
    organizationId,
  });
  const mine = await call('POST', '/v2/oauth-clients', {
    token: scene.users.owner.apiKey,
    body: body('Org app', scene.orgId),
  });
  t.is(mine.status, 201, JSON.stringify(mine.body));
  const theirs = await call('POST', '/v2/oauth-clients', {
    token: other.users.owner.apiKey,
    body: body('Other org app', other.orgId),
  });
  t.is(theirs.status, 201);

  const path = `/v2/organizations/${scene.orgId}/audit-events`;
  const seen = await call('GET', path, { token: scene.users.admin.apiKey });
  t.is(seen.status, 200, JSON.stringify(seen.body));
  const targets = seen.body.data.map((event: Event) => event.target.id);
  t.true(targets.includes(mine.body.data.id));
  t.false(targets.includes(theirs.body.data.id), "another organization's events are not shown");
  t.true(seen.body.data.every((event: Event) => event.organizationId === scene.orgId));

  const member = await call('GET', path, { token: scene.users.member.apiKey });
  t.is(member.status, 403);
  const token = await createTestAccessToken(system.stores, {
    userId: scene.users.admin.id,
    scopes: ['ORG_PROFILE_READ'],
  });
  t.is((await call('GET', path, { token })).status, 403);
  const adminToken = await createTestAccessToken(system.stores, { userId: admin.id, scopes: [] });
  t.is((await call('GET', ADMIN_PATH, { token: adminToken })).status, 403);
});

test('service administration: user.created and resource servers created and deleted, with the admin key and the request; no secret', async (t) => {
  const email = `audit-made-${Date.now()}@example.com`;
  const made = await call('POST', '/v2/admin/users', {
    token: admin.apiKey,
    body: { email, password: 'a long enough password', name: 'Made By Admin' },
    headers: { 'x-request-id': 'audit-admin-user' },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  const userId = made.body.data.user.id as number;
  const [created] = await events(`targetType=user&targetId=${userId}&action=user.created`);
  t.like(created, {
    actor: { type: 'api_key', userId: admin.id },
    target: { type: 'user', id: String(userId) },
    requestId: 'audit-admin-user',
    before: null,
    after: { emailVerified: true, hasPassword: true },
  });
  const text = JSON.stringify(created);
  t.false(text.includes(email), 'no address');
  t.false(text.includes('a long enough password'));
  const [key] = await events(`actor=${admin.id}&action=api_key.created&take=1`);
  t.like(key, { after: { userId }, requestId: 'audit-admin-user' });

  const server = await call('POST', '/v2/admin/resource-servers', {
    token: admin.apiKey,
    body: { name: 'Audited API' },
    headers: { 'x-request-id': 'audit-resource-server' },
  });
  t.is(server.status, 201, JSON.stringify(server.body));
  const serverId = String(server.body.data.id);
  t.is((await call('DELETE', `/v2/admin/resource-servers/${serverId}`, { token: admin.apiKey })).status, 204);
  const list = await events(`targetType=resource_server&targetId=${serverId}`);
  t.deepEqual(
    list.map((event) => event.action),
    ['resource_server.deleted', 'resource_server.created'],
  );
  t.like(list[1], {
    actor: { type: 'api_key', userId: admin.id, apiKeyId: await apiKeyIdOf(admin.id) },
    requestId: 'audit-resource-server',
    after: { name: 'Audited API' },
  });
  t.truthy(list[0]!.ipAddress);
  t.false(JSON.stringify(list).includes(server.body.data.secret));
});
