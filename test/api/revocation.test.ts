import test, { type ExecutionContext } from 'ava';
import { createTestAccessToken } from '../support/tokens.ts';
import { type SecondApi, startSecondApi } from './helpers/second-api.ts';
import { setUpWorld, buildScene } from '../support/world.ts';
import { insertCustomRole, insertUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';

/**
 * Revoking a membership, a role permission, an API key or a token takes effect on the very next
 * request, in this API process and in a second one sharing the database and Redis (its own
 * caches, its own connections). Each case first warms both processes' caches with the same
 * request, so a stale cache would answer.
 */

const { system, call: one, knex } = setUpWorld(test);
let second: SecondApi;
const two = apiClient(() => second.url);
let admin: { id: number; apiKey: string };

test.before(async () => {
  second = await startSecondApi(system);
  admin = await insertUser(knex(), { serviceAdmin: true });
});

test.after.always(async () => {
  await second?.close();
});

/** The same request through both processes, twice (the second one is served from the caches). */
async function expectBoth(t: ExecutionContext, path: string, token: string, status: number, label: string) {
  for (let round = 0; round < 2; round++) {
    for (const [name, call] of [
      ['first', one],
      ['second', two],
    ] as const) {
      const response = await call('GET', path, { token });
      t.is(
        response.status,
        status,
        `${label}: ${name} process, round ${round + 1}: ${JSON.stringify(response.body)}`,
      );
    }
  }
}

test.serial(
  'removing a team membership: the member is refused on the next request in both processes',
  async (t) => {
    const scene = await buildScene(knex(), { owner: { team: 'OWNER' }, member: { team: 'MEMBER' } });
    const path = `/v2/teams/${scene.teamId}/memberships`;
    const oauth = await createTestAccessToken(system.stores, {
      userId: scene.users.member.id,
      scopes: ['TEAM_MEMBERSHIP_READ'],
    });
    await expectBoth(t, path, scene.users.member.apiKey, 200, 'before, API key');
    await expectBoth(t, path, oauth, 200, 'before, OAuth');
    const removed = await one('DELETE', `${path}/${scene.teamMembership.member}`, {
      token: scene.users.owner.apiKey,
    });
    t.is(removed.status, 200);
    await expectBoth(t, path, scene.users.member.apiKey, 403, 'after, API key');
    await expectBoth(t, path, oauth, 403, 'after, OAuth');
  },
);

test.serial('demoting an admin through the second process is seen by the first', async (t) => {
  const scene = await buildScene(knex(), { owner: { org: 'OWNER' }, admin: { org: 'ADMIN' } });
  const path = `/v2/organizations/${scene.orgId}/roles/owner_role/permissions`;
  const invitePath = `/v2/organizations/${scene.orgId}/memberships`;
  const target = await insertUser(knex());
  // An admin-only endpoint, warmed with a harmless refused body (400 comes after access).
  for (const call of [one, two]) {
    const warm = await call('POST', invitePath, { token: scene.users.admin.apiKey, body: {} });
    t.is(warm.status, 400);
  }
  await expectBoth(t, path, scene.users.admin.apiKey, 200, 'member-level read');
  const demoted = await two('PATCH', `${invitePath}/${scene.orgMembership.admin}`, {
    token: scene.users.owner.apiKey,
    body: { role: 'member' },
  });
  t.is(demoted.status, 200);
  for (const call of [one, two]) {
    const refused = await call('POST', invitePath, {
      token: scene.users.admin.apiKey,
      body: { userId: target.id, role: 'MEMBER' },
    });
    t.is(refused.status, 403);
  }
});

test.serial(
  'removing a role permission (one, several, replace, role deletion, PBAC off) takes effect at once',
  async (t) => {
    const scene = await buildScene(
      knex(),
      { owner: { org: 'OWNER' }, reader: { org: 'MEMBER' } },
      { pbacEnabled: true },
    );
    // The reader is an org MEMBER without a team membership: only team.listMembers lets them in.
    const path = `/v2/organizations/${scene.orgId}/teams/${scene.teamId}/memberships`;
    const rolePath = (roleId: string) => `/v2/organizations/${scene.orgId}/roles/${roleId}`;
    const readerItem = `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.reader}`;
    const grant = async (permissions: string[]) => {
      const roleId = await insertCustomRole(knex(), scene.orgId, permissions);
      const set = await one('PATCH', readerItem, {
        token: scene.users.owner.apiKey,
        body: { customRoleId: roleId },
      });
      t.is(set.status, 200);
      return roleId;
    };
    const token = scene.users.reader.apiKey;
    await expectBoth(t, path, token, 403, 'no custom role');

    let roleId = await grant(['team.listMembers', 'booking.read']);
    await expectBoth(t, path, token, 200, 'granted');
    t.is(
      (
        await two('DELETE', `${rolePath(roleId)}/permissions/team.listMembers`, {
          token: scene.users.owner.apiKey,
        })
      ).status,
      200,
    );
    await expectBoth(t, path, token, 403, 'DELETE one permission');

    t.is(
      (
        await one('POST', `${rolePath(roleId)}/permissions`, {
          token: scene.users.owner.apiKey,
          body: { permissions: ['team.*'] },
        })
      ).status,
      201,
    );
    await expectBoth(t, path, token, 200, 'POST permissions (wildcard)');
    t.is(
      (
        await one('DELETE', `${rolePath(roleId)}/permissions`, {
          token: scene.users.owner.apiKey,
          body: { permissions: ['team.*', 'booking.read'] },
        })
      ).status,
      200,
    );
    await expectBoth(t, path, token, 403, 'DELETE several permissions');

    t.is(
      (
        await two('PUT', `${rolePath(roleId)}/permissions`, {
          token: scene.users.owner.apiKey,
          body: { permissions: ['team.listMembers'] },
        })
      ).status,
      200,
    );
    await expectBoth(t, path, token, 200, 'PUT permissions');
    t.is(
      (
        await one('PUT', `${rolePath(roleId)}/permissions`, {
          token: scene.users.owner.apiKey,
          body: { permissions: [] },
        })
      ).status,
      200,
    );
    await expectBoth(t, path, token, 403, 'PUT no permissions');

    roleId = await grant(['team.listMembers']);
    await expectBoth(t, path, token, 200, 'granted again');
    t.is((await one('DELETE', rolePath(roleId), { token: scene.users.owner.apiKey })).status, 200);
    await expectBoth(t, path, token, 403, 'role deleted');

    roleId = await grant(['team.listMembers']);
    await expectBoth(t, path, token, 200, 'granted a third time');
    const off = await two('PATCH', `/v2/admin/organizations/${scene.orgId}`, {
      token: admin.apiKey,
      body: { pbacEnabled: false },
    });
    t.is(off.status, 200);
    t.false(off.body.data.pbacEnabled);
    await expectBoth(t, path, token, 403, 'PBAC turned off');
  },
);

test.serial('revoking an API key: 401 on the next request in both processes', async (t) => {
  const user = await insertUser(knex());
  const created = await one('POST', '/v2/api-keys', { token: user.apiKey });
  t.is(created.status, 201);
  const key: string = created.body.data.apiKey;
  await expectBoth(t, '/v2/me', key, 200, 'new key');
  const revoked = await two('DELETE', `/v2/api-keys/${created.body.data.id}`, { token: user.apiKey });
  t.is(revoked.status, 200);
  for (const call of [one, two]) {
    const response = await call('GET', '/v2/me', { token: key });
    t.is(response.status, 401);
    t.regex(
      response.headers.get('www-authenticate') ?? '',
      /^Bearer error="invalid_token", resource_metadata="/,
    );
  }
  await expectBoth(t, '/v2/me', user.apiKey, 200, 'the other key still works');
});

test.serial(
  'revoking an access token (record deleted, or its grant revoked): 401 on the next request',
  async (t) => {
    const user = await insertUser(knex());
    const store = system.stores.tokenStore;
    const destroyed = await createTestAccessToken(system.stores, {
      userId: user.id,
      scopes: ['PROFILE_READ'],
    });
    const byGrant = await createTestAccessToken(system.stores, {
      userId: user.id,
      scopes: ['PROFILE_READ'],
      grantId: 'grant-to-revoke',
    });
    await expectBoth(t, '/v2/me', destroyed, 200, 'before');
    await expectBoth(t, '/v2/me', byGrant, 200, 'before');
    await store.destroy('AccessToken', destroyed);
    await store.revokeByGrantId('grant-to-revoke');
    for (const token of [destroyed, byGrant]) {
      for (const call of [one, two]) {
        const response = await call('GET', '/v2/me', { token });
        t.is(response.status, 401);
        t.regex(
          response.headers.get('www-authenticate') ?? '',
          /^Bearer error="invalid_token", resource_metadata="/,
        );
      }
    }
  },
);

test.serial(
  'one token-store read per request; a warm authorized GET of a membership runs no SQL',
  async (t) => {
    const scene = await buildScene(
      knex(),
      { caller: { org: 'ADMIN', permissions: ['booking.read'] }, member: { team: 'MEMBER' } },
      { pbacEnabled: true },
    );
    const token = await createTestAccessToken(system.stores, {
      userId: scene.users.caller.id,
      scopes: ['TEAM_MEMBERSHIP_READ'],
    });
    const path = `/v2/organizations/${scene.orgId}/teams/${scene.teamId}/memberships/${scene.teamMembership.member}`;
    for (let i = 0; i < 3; i++) t.is((await two('GET', path, { token })).status, 200);
    second.resetCounts();
    const response = await two('GET', path, { token });
    t.is(response.status, 200);
    t.deepEqual(Object.fromEntries(second.storeCalls), { findWithVersions: 1 });
    // Without Redis the token store is itself a table: its one read is the one statement.
    const storeStatements = system.redis ? 0 : 1;
    t.is(second.queries(), storeStatements);

    // API keys: one readVersions (the key itself is cached too).
    for (let i = 0; i < 3; i++)
      t.is((await two('GET', path, { token: scene.users.caller.apiKey })).status, 200);
    second.resetCounts();
    t.is((await two('GET', path, { token: scene.users.caller.apiKey })).status, 200);
    t.deepEqual(Object.fromEntries(second.storeCalls), { readVersions: 1 });
    t.is(second.queries(), storeStatements);

    // A change of the member's profile is seen at once (PATCH /v2/me bumps user:<id>).
    const renamed = await one('PATCH', '/v2/me', {
      token: scene.users.member.apiKey,
      body: { name: 'Renamed Member' },
    });
    t.is(renamed.status, 200);
    t.is((await two('GET', path, { token })).body.data.user.name, 'Renamed Member');
  },
);
