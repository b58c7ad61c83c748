import test from 'ava';
import { adminAuditEvents } from '../support/audit.ts';
import {
  insertCustomRole,
  insertMemberships,
  insertOrganization,
  insertUser,
  insertUsers,
} from '../support/factories.ts';
import { createTestAccessToken } from '../support/tokens.ts';
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

test('GET .../roles: member_role does not show organization.listMembers, which a member cannot use', async (t) => {
  const s = await buildScene(knex(), { owner: { org: 'OWNER' }, member: { org: 'MEMBER' } });
  const token = s.users.member.apiKey;
  const roles = await call('GET', `/v2/organizations/${s.orgId}/roles`, { token });
  t.is(roles.status, 200, JSON.stringify(roles.body));
  const memberRole = roles.body.data.find((role: { id: string }) => role.id === 'member_role');
  t.false(memberRole.permissions.includes('organization.listMembers'), JSON.stringify(memberRole));
  t.true(memberRole.permissions.includes('team.listMembers'), 'a member still lists their own teams');
  t.is((await call('GET', `/v2/organizations/${s.orgId}/memberships`, { token })).status, 403);
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

// ---- DELETE /v2/teams/{teamId}/memberships/{membershipId}: the row as written ---------------------

test('DELETE of a team membership by a team admin with a TEAM_MEMBERSHIP_WRITE token: 200, status success, the Membership', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    admin: { org: 'MEMBER', team: 'ADMIN' },
    member: { org: 'MEMBER', team: 'MEMBER' },
  });
  const token = await createTestAccessToken(world.system.stores, {
    userId: s.users.admin.id,
    scopes: ['TEAM_MEMBERSHIP_WRITE'],
  });
  const removed = await call('DELETE', `/v2/teams/${s.teamId}/memberships/${s.teamMembership.member}`, {
    token,
  });
  t.is(removed.status, 200, JSON.stringify(removed.body));
  const member = s.users.member;
  t.deepEqual(removed.body, {
    status: 'success',
    data: {
      id: s.teamMembership.member,
      userId: member.id,
      teamId: s.teamId,
      accepted: true,
      role: 'MEMBER',
      user: {
        email: member.email,
        avatarUrl: null,
        username: member.user.username,
        name: member.user.name,
        bio: null,
        metadata: {},
      },
      disableImpersonation: false,
      customRoleId: null,
    },
  });
  const events = await eventsOf('membership', s.teamMembership.member!);
  t.deepEqual(
    events.map((e) => [e.action, e.actor.userId, e.organizationId]),
    [['membership.removed', s.users.admin.id, s.orgId]],
  );
});

// ---- Roles of another organization: 404 "Role not found" on every role path -----------------------

test("another organization's role is 404 Role not found on every role and permission path, and as customRoleId", async (t) => {
  const s = await buildScene(
    knex(),
    { owner: { org: 'OWNER' }, member: { org: 'MEMBER' } },
    { pbacEnabled: true },
  );
  const foreign = await insertCustomRole(knex(), await insertOrganization(knex()), ['role.read']);
  const role = `/v2/organizations/${s.orgId}/roles/${foreign}`;
  const token = s.users.owner.apiKey;
  const answers = [
    await call('GET', role, { token }),
    await call('PATCH', role, { token, body: { description: 'mine now' } }),
    await call('GET', `${role}/permissions`, { token }),
    await call('POST', `${role}/permissions`, { token, body: { permissions: ['role.read'] } }),
    await call('PUT', `${role}/permissions`, { token, body: { permissions: [] } }),
    await call('DELETE', `${role}/permissions`, { token, body: { permissions: ['role.read'] } }),
    await call('DELETE', `${role}/permissions/role.read`, { token }),
    await call('DELETE', role, { token }),
    await call('PATCH', `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.member}`, {
      token,
      body: { customRoleId: foreign },
    }),
  ];
  t.deepEqual(
    answers.map((answer) => [answer.status, answer.body.error?.message]),
    answers.map(() => [404, 'Role not found']),
  );
  const still = await knex()('role_permissions').where({ role_id: foreign }).select('permission');
  t.deepEqual(still, [{ permission: 'role.read' }], 'the other organization keeps its role');
});

// ---- Invitations: only the invitee answers, in order, once ------------------------------------------

test("invitations: someone else's is 404 Invitation not found; a team's before its organization's is 409; duplicates are 409", async (t) => {
  const s = await buildScene(knex(), { owner: { org: 'OWNER', team: 'OWNER' } });
  const invitee = await insertUser(knex());
  const stranger = await insertUser(knex());
  const token = s.users.owner.apiKey;
  const orgPath = `/v2/organizations/${s.orgId}/memberships`;
  const toOrg = await call('POST', orgPath, { token, body: { email: invitee.email, role: 'MEMBER' } });
  t.is(toOrg.status, 201);
  // A pending member of the organization gets a pending membership of its team.
  const toTeam = await call('POST', `/v2/organizations/${s.orgId}/teams/${s.teamId}/memberships`, {
    token,
    body: { email: invitee.email, role: 'MEMBER' },
  });
  t.is(toTeam.status, 201, JSON.stringify(toTeam.body));
  t.false(toTeam.body.data.accepted);
  for (const answer of ['accept', 'decline']) {
    const theirs = await call('POST', `/v2/me/invitations/${toOrg.body.data.id}/${answer}`, {
      token: stranger.apiKey,
    });
    t.is(theirs.status, 404);
    t.is(theirs.body.error.message, 'Invitation not found');
  }
  const early = await call('POST', `/v2/me/invitations/${toTeam.body.data.id}/accept`, {
    token: invitee.apiKey,
  });
  t.is(early.status, 409);
  t.is(
    early.body.error.message,
    'Accept the invitation to the organization first: a team of an organization is joined after the organization',
  );
  const again = await call('POST', orgPath, { token, body: { email: invitee.email, role: 'ADMIN' } });
  t.is(again.status, 409);
  t.is(again.body.error.message, 'This address is already invited to this organization');
  t.is(
    (await call('POST', `/v2/me/invitations/${toOrg.body.data.id}/accept`, { token: invitee.apiKey })).status,
    200,
  );
  t.is(
    (await call('POST', `/v2/me/invitations/${toTeam.body.data.id}/accept`, { token: invitee.apiKey }))
      .status,
    200,
  );
  const member = await call('POST', orgPath, { token, body: { email: invitee.email, role: 'MEMBER' } });
  t.is(member.status, 409);
  t.is(member.body.error.message, 'The user is already a member of this organization');
});

test("declining an organization's invitation declines its teams' too: one invitation.declined naming them", async (t) => {
  const s = await buildScene(knex(), { owner: { org: 'OWNER', team: 'OWNER' } });
  const invitee = await insertUser(knex());
  const token = s.users.owner.apiKey;
  const toOrg = await call('POST', `/v2/organizations/${s.orgId}/memberships`, {
    token,
    body: { email: invitee.email, role: 'MEMBER' },
  });
  const toTeam = await call('POST', `/v2/teams/${s.teamId}/memberships`, {
    token,
    body: { email: invitee.email, role: 'MEMBER' },
  });
  t.deepEqual([toOrg.status, toTeam.status], [201, 201]);
  const declined = await call('POST', `/v2/me/invitations/${toOrg.body.data.id}/decline`, {
    token: invitee.apiKey,
  });
  t.is(declined.status, 204);
  t.deepEqual((await call('GET', '/v2/me/invitations', { token: invitee.apiKey })).body.data, []);
  t.is(
    (await call('GET', `/v2/teams/${s.teamId}/memberships/${toTeam.body.data.id}`, { token })).status,
    404,
  );
  const events = await eventsOf('membership', toOrg.body.data.id);
  t.deepEqual(
    events.map((e) => [e.action, e.actor.userId, e.organizationId, e.details]),
    [
      [
        'invitation.declined',
        invitee.id,
        s.orgId,
        {
          userId: invitee.id,
          teamInvitationsDeclined: [{ id: toTeam.body.data.id, teamId: s.teamId }],
        },
      ],
      ['membership.invited', s.users.owner.id, s.orgId, {}],
    ],
  );
  // The team's invitation went with it: no event of its own beside its invitation.
  t.deepEqual(
    (await eventsOf('membership', toTeam.body.data.id)).map((e) => e.action),
    ['membership.invited'],
  );
});

test("creating a team makes its creator's OWNER membership, with its membership.added event", async (t) => {
  const s = await buildScene(knex(), { admin: { org: 'ADMIN' } });
  const creator = s.users.admin;
  const paths = [
    ['/v2/teams', null],
    [`/v2/organizations/${s.orgId}/teams`, s.orgId],
  ] as const;
  for (const [path, organizationId] of paths) {
    const created = await call('POST', path, {
      token: creator.apiKey,
      body: { name: `Created ${organizationId ?? 'alone'}` },
    });
    t.is(created.status, 201, JSON.stringify(created.body));
    const teamId = created.body.data.id;
    const [own] = (await call('GET', `/v2/teams/${teamId}/memberships`, { token: creator.apiKey })).body.data;
    t.like(own, { userId: creator.id, teamId, role: 'OWNER', accepted: true });
    const events = await eventsOf('membership', own.id);
    t.deepEqual(
      events.map((e) => [e.action, e.actor.userId, e.organizationId, e.after, e.details]),
      [
        [
          'membership.added',
          creator.id,
          organizationId,
          {
            userId: creator.id,
            invitedByEmail: false,
            organizationId: null,
            teamId,
            role: 'OWNER',
            customRoleId: null,
            accepted: true,
          },
          { teamCreated: true },
        ],
      ],
      path,
    );
  }
});

// ---- Lists: skip and take, default 0 and 250 -------------------------------------------------------

test('membership lists take skip and take: by default the first 250, oldest first; take over 250 is 400', async (t) => {
  const s = await buildScene(knex(), { owner: { org: 'OWNER' } });
  const others = await insertUsers(knex(), 251, { withApiKeys: false });
  const ids = [
    s.orgMembership.owner!,
    ...(await insertMemberships(
      knex(),
      others.map((user) => ({ userId: user.id, organizationId: s.orgId, role: 'MEMBER' as const })),
    )),
  ];
  const list = (query: string) =>
    call('GET', `/v2/organizations/${s.orgId}/memberships${query}`, { token: s.users.owner.apiKey });
  const idsOf = (answer: { body: { data: Array<{ id: number }> } }) => answer.body.data.map((m) => m.id);
  t.deepEqual(idsOf(await list('')), ids.slice(0, 250));
  t.deepEqual(idsOf(await list('?skip=250')), ids.slice(250));
  t.deepEqual(idsOf(await list('?skip=1&take=2')), ids.slice(1, 3));
  const tooMany = await list('?take=251');
  t.is(tooMany.status, 400);
  t.is(tooMany.body.error.code, 'BadRequest');
});

// ---- OWNER rules: a team owner does not leave through the organization -----------------------------

test('a team owner cannot leave the team by leaving its organization (403); after handing ownership on, they can', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    leaver: { org: 'MEMBER', team: 'OWNER' },
  });
  const orgItem = `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.leaver}`;
  const teamItem = `/v2/teams/${s.teamId}/memberships/${s.teamMembership.leaver}`;
  const token = s.users.leaver.apiKey;
  // Directly, the team rule refuses it...
  t.is((await call('DELETE', teamItem, { token })).status, 403);
  // ...and leaving the organization, which takes the team membership along, is refused alike.
  const left = await call('DELETE', orgItem, { token });
  t.is(left.status, 403, JSON.stringify(left.body));
  t.is(
    left.body.error.message,
    "A team owner cannot remove their own membership: hand the ownership of this organization's teams on before leaving it",
  );
  const still = await knex()('memberships').whereIn('id', [
    s.orgMembership.leaver!,
    s.teamMembership.leaver!,
  ]);
  t.is(still.length, 2, 'both memberships stay');
  t.deepEqual(await eventsOf('membership', s.orgMembership.leaver!), []);
  // Once the team's ownership is handed on (here the organization's owner makes them MEMBER), they leave.
  const handedOn = await call('PATCH', teamItem, { token: s.users.owner.apiKey, body: { role: 'MEMBER' } });
  t.is(handedOn.status, 200, JSON.stringify(handedOn.body));
  t.is((await call('DELETE', orgItem, { token })).status, 200);
});

test('removing an organization member who owns one of its teams needs an organization admin or owner, not organization.remove alone', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER', team: 'OWNER' },
      remover: { org: 'MEMBER', permissions: ['organization.remove'] },
      teamOwner: { org: 'MEMBER', team: 'OWNER' },
      plain: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const orgPath = `/v2/organizations/${s.orgId}/memberships`;
  const token = s.users.remover.apiKey;
  const refused = await call('DELETE', `${orgPath}/${s.orgMembership.teamOwner}`, { token });
  t.is(refused.status, 403, JSON.stringify(refused.body));
  t.is(
    refused.body.error.message,
    'Only a team owner or an organization admin or owner can remove a team owner',
  );
  t.is(
    (await knex()('memberships').where({ id: s.teamMembership.teamOwner })).length,
    1,
    'still the team owner',
  );
  // The permission still removes members who own no team, and the organization's owner anyone.
  t.is((await call('DELETE', `${orgPath}/${s.orgMembership.plain}`, { token })).status, 200);
  const byOwner = await call('DELETE', `${orgPath}/${s.orgMembership.teamOwner}`, {
    token: s.users.owner.apiKey,
  });
  t.is(byOwner.status, 200, JSON.stringify(byOwner.body));
});

test('removing an organization member who is an admin of one of its teams needs an organization admin or owner, not organization.remove alone', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER', team: 'OWNER' },
      admin: { org: 'ADMIN' },
      remover: { org: 'MEMBER', permissions: ['organization.remove'] },
      teamAdmin: { org: 'MEMBER', team: 'ADMIN' },
      teamAdmin2: { org: 'MEMBER', team: 'ADMIN' },
      teamAdmin3: { org: 'MEMBER', team: 'ADMIN' },
      teamMember: { org: 'MEMBER', team: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const orgPath = `/v2/organizations/${s.orgId}/memberships`;
  const token = s.users.remover.apiKey;
  const refused = await call('DELETE', `${orgPath}/${s.orgMembership.teamAdmin}`, { token });
  t.is(refused.status, 403, JSON.stringify(refused.body));
  t.is(
    refused.body.error.message,
    'Only an organization admin or owner can remove from the organization a member who is an admin of one of its teams',
  );
  const kept = await knex()('memberships').whereIn('id', [
    s.orgMembership.teamAdmin!,
    s.teamMembership.teamAdmin!,
  ]);
  t.is(kept.length, 2, 'both memberships stay');
  t.deepEqual(await eventsOf('membership', s.orgMembership.teamAdmin!), []);
  // A team MEMBER the remover does not outrank goes, with their team membership.
  t.is((await call('DELETE', `${orgPath}/${s.orgMembership.teamMember}`, { token })).status, 200);
  t.is((await knex()('memberships').where({ id: s.teamMembership.teamMember })).length, 0);
  // An organization admin removes a team admin; so does the remover once the team's owner has
  // removed the team membership (where team roles count).
  const byAdmin = await call('DELETE', `${orgPath}/${s.orgMembership.teamAdmin2}`, {
    token: s.users.admin.apiKey,
  });
  t.is(byAdmin.status, 200, JSON.stringify(byAdmin.body));
  const fromTeam = await call('DELETE', `/v2/teams/${s.teamId}/memberships/${s.teamMembership.teamAdmin3}`, {
    token: s.users.owner.apiKey,
  });
  t.is(fromTeam.status, 200, JSON.stringify(fromTeam.body));
  t.is((await call('DELETE', `${orgPath}/${s.orgMembership.teamAdmin3}`, { token })).status, 200);
  // A team admin leaves the organization themselves (a team admin may leave the team).
  const left = await call('DELETE', `${orgPath}/${s.orgMembership.teamAdmin}`, {
    token: s.users.teamAdmin.apiKey,
  });
  t.is(left.status, 200, JSON.stringify(left.body));
});

test('a pending team invitation counts by its role when removing its invitee from the organization, not when they leave', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER', team: 'OWNER' },
      admin: { org: 'ADMIN' },
      remover: { org: 'MEMBER', permissions: ['organization.remove'] },
      invitedOwner: { org: 'MEMBER' },
      invitedAdmin: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const [ownerInvitation, adminInvitation] = await insertMemberships(knex(), [
    { userId: s.users.invitedOwner.id, teamId: s.teamId, role: 'OWNER', accepted: false },
    { userId: s.users.invitedAdmin.id, teamId: s.teamId, role: 'ADMIN', accepted: false },
  ]);
  // An organization invitation to an address, with a team ADMIN invitation to the same address.
  const address = `invited-${s.orgId}@example.test`;
  const [orgInvitation, teamInvitation] = (
    (await knex()('memberships')
      .insert([
        { invited_email: address, organization_id: s.orgId, role: 'MEMBER', accepted: false },
        { invited_email: address, team_id: s.teamId, role: 'ADMIN', accepted: false },
      ])
      .returning('id')) as Array<{ id: number }>
  ).map((row) => Number(row.id));
  const orgPath = `/v2/organizations/${s.orgId}/memberships`;
  const token = s.users.remover.apiKey;
  const byRemover = async (membershipId: number | undefined, message: string) => {
    const refused = await call('DELETE', `${orgPath}/${membershipId}`, { token });
    t.is(refused.status, 403, JSON.stringify(refused.body));
    t.is(refused.body.error.message, message);
  };
  await byRemover(
    s.orgMembership.invitedOwner,
    'Only a team owner or an organization admin or owner can remove a team owner',
  );
  const adminRefusal =
    'Only an organization admin or owner can remove from the organization a member who is an admin of one of its teams';
  await byRemover(s.orgMembership.invitedAdmin, adminRefusal);
  await byRemover(orgInvitation, adminRefusal);
  t.is(
    (await knex()('memberships').whereIn('id', [ownerInvitation!, adminInvitation!, teamInvitation!])).length,
    3,
  );
  // An organization admin removes them, invitations along.
  for (const membershipId of [s.orgMembership.invitedAdmin, orgInvitation]) {
    const removed = await call('DELETE', `${orgPath}/${membershipId}`, { token: s.users.admin.apiKey });
    t.is(removed.status, 200, JSON.stringify(removed.body));
  }
  t.is((await knex()('memberships').whereIn('id', [adminInvitation!, teamInvitation!])).length, 0);
  // Its invitee leaves with a pending team OWNER invitation (declined along): it owns nothing yet.
  const left = await call('DELETE', `${orgPath}/${s.orgMembership.invitedOwner}`, {
    token: s.users.invitedOwner.apiKey,
  });
  t.is(left.status, 200, JSON.stringify(left.body));
  t.is((await knex()('memberships').where({ id: ownerInvitation })).length, 0);
});
