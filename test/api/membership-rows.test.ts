import test from 'ava';
import { adminAuditEvents } from '../support/audit.ts';
import { buildScene, setUpWorld } from '../support/world.ts';

/**
 * Rows of the membership, role and PBAC rules that no other file pins exactly, each tried through
 * the HTTP API as a caller who passes the endpoint's role or PBAC check.
 */

const world = setUpWorld(test);
const { call, knex } = world;

const GRANT = 'You cannot grant permissions you do not hold: ';

async function customRoleOf(membershipId: number): Promise<string> {
  const row = (await knex()('memberships').where({ id: membershipId }).first('custom_role_id')) as {
    custom_role_id: string;
  };
  return row.custom_role_id;
}

// ---- PBAC cannot be escalated: what an organization MEMBER holds organization-wide ------------------

test("an organization member who may edit roles cannot give their own role organization.listMembers (members' list is ADMIN's)", async (t) => {
  const s = await buildScene(
    knex(),
    { owner: { org: 'OWNER' }, delegate: { org: 'MEMBER', permissions: ['role.update'] } },
    { pbacEnabled: true },
  );
  const token = s.users.delegate.apiKey;
  const list = () => call('GET', `/v2/organizations/${s.orgId}/memberships`, { token });
  t.is((await list()).status, 403);
  const roleId = await customRoleOf(s.orgMembership.delegate!);
  const widened = await call('PATCH', `/v2/organizations/${s.orgId}/roles/${roleId}`, {
    token,
    body: { permissions: ['role.update', 'organization.listMembers'] },
  });
  t.is(widened.status, 403, JSON.stringify(widened.body));
  t.is(widened.body.error.message, `${GRANT}organization.listMembers`);
  t.is((await list()).status, 403, 'still no list of the members');
});

test("an organization member who may edit roles cannot widen their team rights to the organization's other teams", async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      delegate: { org: 'MEMBER', permissions: ['role.update'] },
      teammate: { org: 'MEMBER', team: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const token = s.users.delegate.apiKey;
  const teamList = () => call('GET', `/v2/teams/${s.teamId}/memberships`, { token });
  t.is((await teamList()).status, 403, 'the delegate is in no team');
  const roleId = await customRoleOf(s.orgMembership.delegate!);
  for (const permission of ['team.listMembers', 'booking.read', 'eventType.read', 'schedule.read']) {
    const widened = await call('PATCH', `/v2/organizations/${s.orgId}/roles/${roleId}`, {
      token,
      body: { permissions: ['role.update', permission] },
    });
    t.is(widened.status, 403, `${permission}: ${JSON.stringify(widened.body)}`);
    t.is(widened.body.error.message, `${GRANT}${permission}`);
  }
  t.is((await teamList()).status, 403);
  // What an organization member does hold across the organization stays grantable.
  const kept = await call('PATCH', `/v2/organizations/${s.orgId}/roles/${roleId}`, {
    token,
    body: { permissions: ['role.update', 'role.read'] },
  });
  t.is(kept.status, 200, JSON.stringify(kept.body));
});

// ---- Events: written when something changed, not for a write that changes nothing ----------------

const eventsOf = (targetType: string, targetId: number | string) =>
  adminAuditEvents(world, `targetType=${targetType}&targetId=${targetId}`);

test('a membership PATCH to the values it has writes no membership.updated; a change writes one', async (t) => {
  const s = await buildScene(knex(), { owner: { org: 'OWNER' }, member: { org: 'MEMBER' } });
  const path = `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.member}`;
  const token = s.users.owner.apiKey;
  const same = await call('PATCH', path, { token, body: { role: 'member', customRoleId: null } });
  t.is(same.status, 200, JSON.stringify(same.body));
  t.is(same.body.data.role, 'MEMBER');
  t.deepEqual(await eventsOf('membership', s.orgMembership.member!), []);
  t.is((await call('PATCH', path, { token, body: { role: 'ADMIN' } })).status, 200);
  const events = await eventsOf('membership', s.orgMembership.member!);
  t.deepEqual(
    events.map((e) => [e.action, e.before, e.after]),
    [['membership.updated', { role: 'MEMBER', customRoleId: null }, { role: 'ADMIN', customRoleId: null }]],
  );
});

test('role writes that change nothing write no event: same fields, permissions held or absent', async (t) => {
  const s = await buildScene(knex(), { owner: { org: 'OWNER' } }, { pbacEnabled: true });
  const token = s.users.owner.apiKey;
  const created = await call('POST', `/v2/organizations/${s.orgId}/roles`, {
    token,
    body: { name: 'Readers', description: 'reads', permissions: ['role.read', 'team.read'] },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  const role = `/v2/organizations/${s.orgId}/roles/${created.body.data.id}`;
  const unchanged = [
    await call('PATCH', role, { token, body: { name: 'Readers', permissions: ['team.read', 'role.read'] } }),
    await call('POST', `${role}/permissions`, { token, body: { permissions: ['role.read'] } }),
    await call('PUT', `${role}/permissions`, { token, body: { permissions: ['role.read', 'team.read'] } }),
    await call('DELETE', `${role}/permissions`, { token, body: { permissions: ['booking.read'] } }),
    await call('DELETE', `${role}/permissions/eventType.read`, { token }),
  ];
  t.deepEqual(
    unchanged.map((answer) => answer.status),
    [200, 201, 200, 200, 200],
  );
  const actions = async () => (await eventsOf('role', created.body.data.id)).map((e) => e.action);
  t.deepEqual(await actions(), ['role.created']);
  // Each write that does change the role has its event (newest first).
  await call('PATCH', role, { token, body: { description: 'reads roles and teams' } });
  await call('DELETE', `${role}/permissions/team.read`, { token });
  t.deepEqual(await actions(), ['role.permissions_removed', 'role.updated', 'role.created']);
});
