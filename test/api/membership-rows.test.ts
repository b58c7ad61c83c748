import test from 'ava';
import { buildScene, setUpWorld } from '../support/world.ts';

/**
 * Rows of the membership, role and PBAC rules that no other file pins exactly, each tried through
 * the HTTP API as a caller who passes the endpoint's role or PBAC check.
 */

const { call, knex } = setUpWorld(test);

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
