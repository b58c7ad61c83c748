import { listAuditEntries } from '@sched/db/queries/audit-log';
import test from 'ava';
import { approvedClient, createClient, setUpClientsWorld } from './helpers.ts';
import { clientCredentials, issueTokens, tokenRequest } from '../support/oauth.ts';
import { buildScene } from '../support/world.ts';
import { insertUser, type TestClient, type TestUser } from '../support/factories.ts';

// The client-secret state table, the secret limits and their exact messages, and who may delete a
// client (docs/oauth-clients.md). A secret is checked for real through the deprecated managed-user
// endpoint, which authenticates with `x-svc-secret-key` against the client's active secrets.

const { world, owner } = setUpClientsWorld(test);

const secretWorks = async (clientId: string, secret: string) =>
  (
    await world.call('GET', `/v2/oauth-clients/${clientId}/users`, {
      headers: { 'x-svc-secret-key': secret },
    })
  ).status === 200;

test('one active -> generate -> two active: the new secret is shown once and both work', async (t) => {
  const client = await createClient(world, owner);
  const first = client.secret as string;
  const generated = await world.call('POST', `/v2/oauth-clients/${client.id}/secrets`, {
    token: owner.apiKey,
  });
  t.is(generated.status, 201);
  const second = generated.body.data.secret as string;
  t.regex(second, /^[A-Za-z0-9_-]{43}$/);
  t.is(generated.body.data.secretHint, `****${second.slice(-4)}`);
  const listed = await world.call('GET', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey });
  t.is(listed.status, 200);
  t.is(listed.body.data.length, 2);
  t.false(JSON.stringify(listed.body).includes(second));
  t.false(JSON.stringify(listed.body).includes(first));
  t.deepEqual(Object.keys(listed.body.data[0]).sort(), ['createdAt', 'id', 'secretHint']);
  t.true(await secretWorks(client.id, first));
  t.true(await secretWorks(client.id, second));
  // The client shows the newest secret's hint.
  const got = await world.call('GET', `/v2/oauth-clients/${client.id}`, { token: owner.apiKey });
  t.is(got.body.data.secret, `****${second.slice(-4)}`);
});

test('two active -> generate: refused with the exact message, nothing changes', async (t) => {
  const client = await createClient(world, owner);
  await world.call('POST', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey });
  const third = await world.call('POST', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey });
  t.is(third.status, 400);
  t.is(third.body.error.message, 'Maximum of 2 secrets allowed. Delete an existing secret first.');
  const listed = await world.call('GET', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey });
  t.is(listed.body.data.length, 2);
});

test('two active -> revoke one -> one active: the revoked secret fails at once; the last cannot go', async (t) => {
  const client = await createClient(world, owner);
  const first = client.secret as string;
  const generated = await world.call('POST', `/v2/oauth-clients/${client.id}/secrets`, {
    token: owner.apiKey,
  });
  const second = generated.body.data.secret as string;
  const [oldest] = (
    await world.call('GET', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey })
  ).body.data;
  const revoked = await world.call('DELETE', `/v2/oauth-clients/${client.id}/secrets/${oldest.id}`, {
    token: owner.apiKey,
  });
  t.is(revoked.status, 200);
  t.is(revoked.body.data.secretHint, `****${first.slice(-4)}`);
  t.false(await secretWorks(client.id, first));
  t.true(await secretWorks(client.id, second));
  const again = await world.call('DELETE', `/v2/oauth-clients/${client.id}/secrets/${oldest.id}`, {
    token: owner.apiKey,
  });
  t.is(again.status, 404);
  const remaining = (
    await world.call('GET', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey })
  ).body.data;
  t.is(remaining.length, 1);
  const last = await world.call('DELETE', `/v2/oauth-clients/${client.id}/secrets/${remaining[0].id}`, {
    token: owner.apiKey,
  });
  t.is(last.status, 400);
  t.is(
    last.body.error.message,
    'Cannot delete the only active secret of a confidential client. Generate a new secret first.',
  );
  const actions = (await listAuditEntries(world.system.stores.db.knex, 'oauth_client', client.id)).map(
    (e) => e.action,
  );
  t.true(actions.includes('oauth_client.secret_created'));
  t.true(actions.includes('oauth_client.secret_revoked'));
});

test('at most 2 active secrets holds under concurrency: of parallel generations one wins; of parallel revocations of both, one', async (t) => {
  const client = await createClient(world, owner);
  const generated = await Promise.all(
    Array.from({ length: 8 }, () =>
      world.call('POST', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey }),
    ),
  );
  t.is(generated.filter((r) => r.status === 201).length, 1, generated.map((r) => r.status).join(','));
  for (const refused of generated.filter((r) => r.status !== 201)) {
    t.is(refused.status, 400);
    t.is(refused.body.error.message, 'Maximum of 2 secrets allowed. Delete an existing secret first.');
  }
  const listed = await world.call('GET', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey });
  t.is(listed.body.data.length, 2);
  const revoked = await Promise.all(
    listed.body.data.map((secret: { id: number }) =>
      world.call('DELETE', `/v2/oauth-clients/${client.id}/secrets/${secret.id}`, { token: owner.apiKey }),
    ),
  );
  t.deepEqual(revoked.map((r) => r.status).sort(), [200, 400]);
  const left = await world.call('GET', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey });
  t.is(left.body.data.length, 1, 'a confidential client keeps one secret');
});

test('public clients have no secrets', async (t) => {
  const client = await createClient(world, owner, { clientType: 'public' });
  t.is(client.secret, null);
  t.is(client.clientType, 'public');
  for (const [method, path] of [
    ['POST', `/v2/oauth-clients/${client.id}/secrets`],
    ['GET', `/v2/oauth-clients/${client.id}/secrets`],
    ['DELETE', `/v2/oauth-clients/${client.id}/secrets/1`],
  ] as const) {
    const response = await world.call(method, path, { token: owner.apiKey });
    t.is(response.status, 400, `${method} ${path}`);
    t.is(response.body.error.message, 'Public clients do not use client secrets');
  }
});

test('DELETE returns {status, data: client} with the secret masked from its hint', async (t) => {
  const client = await createClient(world, owner, { name: 'To delete' });
  const response = await world.call('DELETE', `/v2/oauth-clients/${client.id}`, { token: owner.apiKey });
  t.is(response.status, 200);
  t.is(response.body.status, 'success');
  t.is(response.body.data.id, client.id);
  t.is(response.body.data.name, 'To delete');
  t.is(response.body.data.secret, `****${(client.secret as string).slice(-4)}`);
  t.regex(response.body.data.secret, /^\*{4}[A-Za-z0-9_-]{4}$/);
  t.deepEqual(response.body.data.permissions, client.scopes);
  for (const field of [
    'logo',
    'redirectUris',
    'organizationId',
    'createdAt',
    'areEmailsEnabled',
    'areDefaultEventTypesEnabled',
    'areCalendarEventsEnabled',
    'bookingRedirectUri',
    'bookingCancelRedirectUri',
    'bookingRescheduleRedirectUri',
    'websiteUrl',
    'purpose',
    'reviewStatus',
    'rejectionReason',
    'clientType',
  ]) {
    t.true(field in response.body.data, field);
  }
  const gone = await world.call('GET', `/v2/oauth-clients/${client.id}`, { token: owner.apiKey });
  t.is(gone.status, 404);
  t.false(await secretWorks(client.id, client.secret));
  const entries = await listAuditEntries(world.system.stores.db.knex, 'oauth_client', client.id);
  t.is(entries.at(-1)!.action, 'oauth_client.deleted');
});

test('who may delete: owner, org admin/owner, service admin; org member 403; anyone else 404', async (t) => {
  const knex = world.system.stores.db.knex;
  const scene = await buildScene(knex, {
    creator: { org: 'ADMIN' },
    orgOwner: { org: 'OWNER' },
    orgAdmin: { org: 'ADMIN' },
    orgMember: { org: 'MEMBER' },
    invitedAdmin: { org: 'ADMIN', accepted: false },
  });
  const stranger = await insertUser(knex);
  const other = await buildScene(knex, { otherOrgOwner: { org: 'OWNER' } });
  const newClient = () => createClient(world, scene.users.creator, { organizationId: scene.orgId });

  const deleteAs = (user: TestUser, clientId: string) =>
    world.call('DELETE', `/v2/oauth-clients/${clientId}`, { token: user.apiKey });

  const hidden = await newClient();
  for (const user of [stranger, scene.users.invitedAdmin, other.users.otherOrgOwner]) {
    const response = await deleteAs(user, hidden.id);
    t.is(response.status, 404);
    t.is(response.body.error.message, 'OAuth client not found');
    t.is((await world.call('GET', `/v2/oauth-clients/${hidden.id}`, { token: user.apiKey })).status, 404);
  }
  const seen = await world.call('GET', `/v2/oauth-clients/${hidden.id}`, {
    token: scene.users.orgMember.apiKey,
  });
  t.is(seen.status, 200);
  const memberDelete = await deleteAs(scene.users.orgMember, hidden.id);
  t.is(memberDelete.status, 403);
  const memberPatch = await world.call('PATCH', `/v2/oauth-clients/${hidden.id}`, {
    token: scene.users.orgMember.apiKey,
    body: { name: 'x' },
  });
  t.is(memberPatch.status, 403);
  const missing = await deleteAs(owner, 'no-such-client');
  t.is(missing.status, 404);

  for (const user of [scene.users.creator, scene.users.orgOwner, scene.users.orgAdmin, world.admin]) {
    const client = await newClient();
    const response = await deleteAs(user, client.id);
    t.is(response.status, 200);
    t.is(response.body.data.id, client.id);
  }
  // A personal client (no organization): its owner and a service admin only.
  const personal = await createClient(world, owner);
  t.is((await deleteAs(scene.users.orgOwner, personal.id)).status, 404);
  t.is((await deleteAs(owner, personal.id)).status, 200);
});

test('registering for an organization needs its admin or owner role', async (t) => {
  const knex = world.system.stores.db.knex;
  const scene = await buildScene(knex, { member: { org: 'MEMBER' }, admin: { org: 'ADMIN' } });
  const asMember = await world.call('POST', '/v2/oauth-clients', {
    token: scene.users.member.apiKey,
    body: {
      name: 'x',
      redirectUris: ['https://x.example.com/cb'],
      scopes: ['BOOKING_READ'],
      organizationId: scene.orgId,
    },
  });
  t.is(asMember.status, 403);
  const unknownOrg = await world.call('POST', '/v2/oauth-clients', {
    token: scene.users.admin.apiKey,
    body: {
      name: 'x',
      redirectUris: ['https://x.example.com/cb'],
      scopes: ['BOOKING_READ'],
      organizationId: 999999,
    },
  });
  t.is(unknownOrg.status, 404);
  const listed = await createClient(world, scene.users.admin, { organizationId: scene.orgId });
  const memberList = await world.call('GET', '/v2/oauth-clients', { token: scene.users.member.apiKey });
  t.deepEqual(
    memberList.body.data.map((c: { id: string }) => c.id),
    [listed.id],
  );
});

test('management is not reachable with OAuth access tokens', async (t) => {
  const { createTestAccessToken } = await import('../support/tokens.ts');
  const token = await createTestAccessToken(world.system.stores, {
    userId: owner.id,
    scopes: ['BOOKING_READ'],
  });
  const response = await world.call('GET', '/v2/oauth-clients', { token });
  t.is(response.status, 403);
  t.is(
    response.body.error.message,
    'insufficient_scope: this endpoint is not available for third-party OAuth tokens',
  );
  const legacy = await createTestAccessToken(world.system.stores, {
    userId: owner.id,
    legacy: true,
  });
  t.is((await world.call('POST', '/v2/oauth-clients', { token: legacy, body: {} })).status, 403);
});

test('deleting a client stops its access tokens on the next request', async (t) => {
  const { createTestAccessToken } = await import('../support/tokens.ts');
  const client = await createClient(world, owner, { name: 'Short-lived' });
  const token = await createTestAccessToken(world.system.stores, {
    userId: owner.id,
    clientId: client.id,
    scopes: ['PROFILE_READ'],
  });
  t.is((await world.call('GET', '/v2/me', { token })).status, 200);
  t.is((await world.call('GET', '/v2/me', { token })).status, 200, 'cached path');
  const deleted = await world.call('DELETE', `/v2/oauth-clients/${client.id}`, { token: owner.apiKey });
  t.is(deleted.status, 200);
  const after = await world.call('GET', '/v2/me', { token });
  t.is(after.status, 401);
});

test('a deleted client cannot refresh: 401 invalid_client "client_not_found"', async (t) => {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const created = await approvedClient(world, owner, {
    redirectUris: [redirectUri],
    scopes: ['PROFILE_READ'],
  });
  const client: TestClient = {
    client: { ...created, scopes: created.scopes } as TestClient['client'],
    secret: created.secret as string,
    redirectUri,
  };
  const enduser = await insertUser(world.system.stores.db.knex);
  const tokens = await issueTokens(world.system.url, client, enduser, ['PROFILE_READ']);
  const deleted = await world.call('DELETE', `/v2/oauth-clients/${created.id}`, { token: owner.apiKey });
  t.is(deleted.status, 200);
  const refreshed = await tokenRequest(world.system.url, {
    ...clientCredentials(client),
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
  });
  t.is(refreshed.status, 401, JSON.stringify(refreshed.body));
  t.is(refreshed.body.error, 'invalid_client');
  t.is(refreshed.body.error_description, 'client_not_found');
});
