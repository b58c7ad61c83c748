import test, { type ExecutionContext } from 'ava';
import {
  insertMembership,
  insertOrganization,
  insertTeam,
  insertUser,
  insertCustomRole,
} from '../support/factories.ts';
import type { ApiResponse } from '../support/http.ts';
import { buildScene, setUpWorld as setUpApiSystem } from '../support/world.ts';

/**
 * The rules of role assignment and of removing team owners, plus the rules this service adds
 * (custom roles, last owner; services/api/README.md). Each refusal is a case that only that rule
 * refuses: the caller passes the endpoint's role / PBAC check, so the test fails if the rule's
 * check is removed. Each also has an allowed counterpart.
 */

const { call, knex } = setUpApiSystem(test);
const teamPaths = (orgId: number, teamId: number) => [
  `/v2/organizations/${orgId}/teams/${teamId}/memberships`,
  `/v2/teams/${teamId}/memberships`,
];

function isForbidden(t: ExecutionContext, response: ApiResponse, reason: RegExp) {
  t.is(response.status, 403, JSON.stringify(response.body));
  t.is(response.body.error.code, 'Forbidden');
  t.regex(response.body.error.message, reason);
}

// ---- Role assignment ----------------------------------------------------------------------------

test('nobody assigns a role higher than their own (PBAC member with team.invite cannot add an ADMIN)', async (t) => {
  const scene = await buildScene(
    knex(),
    { inviter: { org: 'MEMBER', team: 'MEMBER', permissions: ['team.invite'] } },
    { pbacEnabled: true },
  );
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    const target = await insertUser(knex());
    await insertMembership(knex(), { userId: target.id, organizationId: scene.orgId, role: 'MEMBER' });
    const refused = await call('POST', path, {
      token: scene.users.inviter.apiKey,
      body: { userId: target.id, role: 'admin' },
    });
    isForbidden(t, refused, /higher than your own/);
    const allowed = await call('POST', path, {
      token: scene.users.inviter.apiKey,
      body: { userId: target.id, role: 'member' },
    });
    t.is(allowed.status, 201);
    t.is(allowed.body.data.role, 'MEMBER');
  }
});

test('an admin cannot assign owner to another member: create, invite by email and PATCH', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER' },
    admin: { org: 'ADMIN', team: 'ADMIN' },
    member: { org: 'MEMBER', team: 'MEMBER' },
  });
  const orgPath = `/v2/organizations/${scene.orgId}/memberships`;
  const paths = [orgPath, ...teamPaths(scene.orgId, scene.teamId)];
  for (const path of paths) {
    const target = await insertUser(knex());
    if (path !== orgPath)
      await insertMembership(knex(), { userId: target.id, organizationId: scene.orgId, role: 'MEMBER' });
    const create = await call('POST', path, {
      token: scene.users.admin.apiKey,
      body: { userId: target.id, role: 'OWNER' },
    });
    isForbidden(t, create, /admin cannot assign the owner role/);
    const invite = await call('POST', path, {
      token: scene.users.admin.apiKey,
      body: { email: target.email, role: 'owner' },
    });
    isForbidden(t, invite, /admin cannot assign the owner role/);
    // An organization invites a stranger by e-mail; its team adds the organization's (pending) member.
    const asAdmin = await call('POST', path, {
      token: scene.users.admin.apiKey,
      body: path === orgPath ? { email: target.email, role: 'admin' } : { userId: target.id, role: 'admin' },
    });
    t.is(asAdmin.status, 201, `${path}: an admin may assign admin`);
  }
  const memberId = scene.orgMembership.member!;
  const patch = await call('PATCH', `${orgPath}/${memberId}`, {
    token: scene.users.admin.apiKey,
    body: { role: 'OWNER' },
  });
  isForbidden(t, patch, /admin cannot assign the owner role/);
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    const teamPatch = await call('PATCH', `${path}/${scene.teamMembership.member}`, {
      token: scene.users.admin.apiKey,
      body: { role: 'owner' },
    });
    isForbidden(t, teamPatch, /admin cannot assign the owner role/);
  }
  // The owner may.
  const byOwner = await call('PATCH', `${orgPath}/${memberId}`, {
    token: scene.users.owner.apiKey,
    body: { role: 'owner' },
  });
  t.is(byOwner.status, 200);
  t.is(byOwner.body.data.role, 'OWNER');
});

test('an admin cannot promote themselves to owner', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    admin: { org: 'ADMIN', team: 'ADMIN' },
  });
  const orgPatch = await call(
    'PATCH',
    `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.admin}`,
    {
      token: scene.users.admin.apiKey,
      body: { role: 'OWNER' },
    },
  );
  isForbidden(t, orgPatch, /admin cannot promote themselves to owner/);
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    const teamPatch = await call('PATCH', `${path}/${scene.teamMembership.admin}`, {
      token: scene.users.admin.apiKey,
      body: { role: 'OWNER' },
    });
    isForbidden(t, teamPatch, /admin cannot promote themselves to owner/);
  }
  // Changing something else of their own membership is fine.
  const own = await call(
    'PATCH',
    `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.admin}`,
    {
      token: scene.users.admin.apiKey,
      body: { accepted: true, role: 'ADMIN' },
    },
  );
  t.is(own.status, 200);
});

test("an admin cannot change an existing owner's role, nor modify an owner at all", async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    otherOwner: { org: 'OWNER', team: 'OWNER' },
    admin: { org: 'ADMIN', team: 'ADMIN' },
  });
  const orgItem = `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.owner}`;
  isForbidden(
    t,
    await call('PATCH', orgItem, { token: scene.users.admin.apiKey, body: { role: 'member' } }),
    /admin cannot change the role of an existing owner/,
  );
  isForbidden(
    t,
    await call('PATCH', orgItem, { token: scene.users.admin.apiKey, body: { accepted: false } }),
    /cannot modify a member whose role \(OWNER\) is higher than your own \(ADMIN\)/,
  );
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    const item = `${path}/${scene.teamMembership.owner}`;
    isForbidden(
      t,
      await call('PATCH', item, { token: scene.users.admin.apiKey, body: { role: 'ADMIN' } }),
      /admin cannot change the role of an existing owner/,
    );
  }
  // Another owner may.
  const byOwner = await call('PATCH', orgItem, {
    token: scene.users.otherOwner.apiKey,
    body: { role: 'admin' },
  });
  t.is(byOwner.status, 200);
});

test('nobody modifies a member ranked above them (PBAC member with changeMemberRole vs an admin)', async (t) => {
  const scene = await buildScene(
    knex(),
    {
      changer: {
        org: 'MEMBER',
        team: 'MEMBER',
        permissions: ['team.changeMemberRole', 'organization.changeMemberRole'],
      },
      admin: { org: 'ADMIN', team: 'ADMIN' },
      member: { org: 'MEMBER', team: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  isForbidden(
    t,
    await call('PATCH', `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.admin}`, {
      token: scene.users.changer.apiKey,
      body: { accepted: true },
    }),
    /cannot modify a member whose role \(ADMIN\) is higher than your own \(MEMBER\)/,
  );
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    isForbidden(
      t,
      await call('PATCH', `${path}/${scene.teamMembership.admin}`, {
        token: scene.users.changer.apiKey,
        body: { role: 'MEMBER' },
      }),
      /higher than your own/,
    );
    const ok = await call('PATCH', `${path}/${scene.teamMembership.member}`, {
      token: scene.users.changer.apiKey,
      body: { accepted: true },
    });
    t.is(ok.status, 200);
  }
});

test("an org admin ranks as a team admin: may assign admin in the org's teams, not owner; an org owner may", async (t) => {
  const scene = await buildScene(knex(), { orgOwner: { org: 'OWNER' }, orgAdmin: { org: 'ADMIN' } });
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    const target = await insertUser(knex());
    await insertMembership(knex(), { userId: target.id, organizationId: scene.orgId, role: 'MEMBER' });
    isForbidden(
      t,
      await call('POST', path, {
        token: scene.users.orgAdmin.apiKey,
        body: { userId: target.id, role: 'OWNER' },
      }),
      /owner/,
    );
    const byOwner = await call('POST', path, {
      token: scene.users.orgOwner.apiKey,
      body: { userId: target.id, role: 'OWNER' },
    });
    t.is(byOwner.status, 201);
  }
});

// ---- Removing team owners -----------------------------------------------------------------------

test('a team admin may not remove a team owner, even holding team.remove (PBAC on)', async (t) => {
  const scene = await buildScene(
    knex(),
    {
      owner: { team: 'OWNER' },
      otherOwner: { team: 'OWNER' },
      admin: { team: 'ADMIN', permissions: ['team.remove'] },
      member: { team: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    isForbidden(
      t,
      await call('DELETE', `${path}/${scene.teamMembership.owner}`, { token: scene.users.admin.apiKey }),
      /Only a team owner or an organization admin or owner can remove a team owner/,
    );
  }
  // The admin removes a member.
  const ok = await call('DELETE', `/v2/teams/${scene.teamId}/memberships/${scene.teamMembership.member}`, {
    token: scene.users.admin.apiKey,
  });
  t.is(ok.status, 200);
  t.is(ok.body.data.id, scene.teamMembership.member);
});

test('a team owner may remove another team owner', async (t) => {
  for (const pathOf of [0, 1]) {
    const scene = await buildScene(knex(), { owner: { team: 'OWNER' }, otherOwner: { team: 'OWNER' } });
    const path = teamPaths(scene.orgId, scene.teamId)[pathOf]!;
    const response = await call('DELETE', `${path}/${scene.teamMembership.otherOwner}`, {
      token: scene.users.owner.apiKey,
    });
    t.is(response.status, 200);
    t.is(response.body.data.role, 'OWNER');
    const gone = await call('GET', `${path}/${scene.teamMembership.otherOwner}`, {
      token: scene.users.owner.apiKey,
    });
    t.is(gone.status, 404);
  }
});

test('organization admins and owners may remove any team owner', async (t) => {
  for (const remover of ['orgAdmin', 'orgOwner'] as const) {
    for (const pathOf of [0, 1]) {
      const scene = await buildScene(knex(), {
        orgOwner: { org: 'OWNER' },
        orgAdmin: { org: 'ADMIN' },
        teamOwner: { team: 'OWNER' },
      });
      const path = teamPaths(scene.orgId, scene.teamId)[pathOf]!;
      const response = await call('DELETE', `${path}/${scene.teamMembership.teamOwner}`, {
        token: scene.users[remover].apiKey,
      });
      t.is(response.status, 200, `${remover} via ${path}`);
    }
  }
});

test('a team owner cannot remove their own membership, even as organization owner', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { team: 'OWNER' },
    orgOwnerAndTeamOwner: { org: 'OWNER', team: 'OWNER' },
  });
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    for (const who of ['owner', 'orgOwnerAndTeamOwner'] as const) {
      isForbidden(
        t,
        await call('DELETE', `${path}/${scene.teamMembership[who]}`, { token: scene.users[who].apiKey }),
        /cannot remove their own membership/,
      );
    }
  }
});

test('a PBAC-only remover cannot remove a member ranked above them (rank rule for non-owners)', async (t) => {
  const scene = await buildScene(
    knex(),
    {
      remover: { team: 'MEMBER', permissions: ['team.remove'] },
      admin: { team: 'ADMIN' },
      member: { team: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  isForbidden(
    t,
    await call('DELETE', `/v2/teams/${scene.teamId}/memberships/${scene.teamMembership.admin}`, {
      token: scene.users.remover.apiKey,
    }),
    /higher than your own/,
  );
  const ok = await call('DELETE', `/v2/teams/${scene.teamId}/memberships/${scene.teamMembership.member}`, {
    token: scene.users.remover.apiKey,
  });
  t.is(ok.status, 200);
});

test('organization memberships: an owner does not remove themselves; an admin does not remove an owner', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER' },
    admin: { org: 'ADMIN' },
    member: { org: 'MEMBER', team: 'MEMBER' },
  });
  const base = `/v2/organizations/${scene.orgId}/memberships`;
  isForbidden(
    t,
    await call('DELETE', `${base}/${scene.orgMembership.owner}`, { token: scene.users.owner.apiKey }),
    /owner cannot remove their own membership/,
  );
  isForbidden(
    t,
    await call('DELETE', `${base}/${scene.orgMembership.owner}`, { token: scene.users.admin.apiKey }),
    /higher than your own/,
  );
  // Removing a member also removes their memberships of the organization's teams.
  const ok = await call('DELETE', `${base}/${scene.orgMembership.member}`, {
    token: scene.users.admin.apiKey,
  });
  t.is(ok.status, 200);
  const teamMembership = await call(
    'GET',
    `/v2/teams/${scene.teamId}/memberships/${scene.teamMembership.member}`,
    {
      token: scene.users.admin.apiKey,
    },
  );
  t.is(teamMembership.status, 404);
});

// ---- Where the specification is silent (services/api/README.md) --------------------------------

test('the last accepted owner cannot step down (409); with a second owner they can', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    other: { org: 'MEMBER', team: 'MEMBER' },
  });
  const teamItem = `/v2/teams/${scene.teamId}/memberships/${scene.teamMembership.owner}`;
  const refused = await call('PATCH', teamItem, { token: scene.users.owner.apiKey, body: { role: 'ADMIN' } });
  t.is(refused.status, 409);
  t.regex(refused.body.error.message, /at least one owner/);
  const orgItem = `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.owner}`;
  t.is(
    (await call('PATCH', orgItem, { token: scene.users.owner.apiKey, body: { role: 'MEMBER' } })).status,
    409,
  );
  const promote = await call('PATCH', `/v2/teams/${scene.teamId}/memberships/${scene.teamMembership.other}`, {
    token: scene.users.owner.apiKey,
    body: { role: 'OWNER' },
  });
  t.is(promote.status, 200);
  const stepDown = await call('PATCH', teamItem, {
    token: scene.users.owner.apiKey,
    body: { role: 'ADMIN' },
  });
  t.is(stepDown.status, 200);
  t.is(stepDown.body.data.role, 'ADMIN');
});

test('custom roles: only a custom role of the organization; another organization’s is 404; system roles and standalone teams 400', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    member: { org: 'MEMBER', team: 'MEMBER' },
  });
  const own = await insertCustomRole(knex(), scene.orgId, ['team.read']);
  const foreignOrg = await insertOrganization(knex());
  const foreign = await insertCustomRole(knex(), foreignOrg, ['*.*']);
  const orgItem = `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.member}`;
  const teamItem = `/v2/teams/${scene.teamId}/memberships/${scene.teamMembership.member}`;
  for (const item of [orgItem, teamItem]) {
    const set = await call('PATCH', item, { token: scene.users.owner.apiKey, body: { customRoleId: own } });
    t.is(set.status, 200);
    t.is(set.body.data.customRoleId, own);
    t.is(
      (await call('PATCH', item, { token: scene.users.owner.apiKey, body: { customRoleId: foreign } }))
        .status,
      404,
    );
    t.is(
      (await call('PATCH', item, { token: scene.users.owner.apiKey, body: { customRoleId: 'admin_role' } }))
        .status,
      400,
    );
    const cleared = await call('PATCH', item, {
      token: scene.users.owner.apiKey,
      body: { customRoleId: null },
    });
    t.is(cleared.body.data.customRoleId, null);
  }
  const owner = await insertUser(knex());
  const standalone = await insertTeam(knex(), null);
  const [ownerMembership, memberMembership] = [
    await insertMembership(knex(), { userId: owner.id, teamId: standalone, role: 'OWNER' }),
    await insertMembership(knex(), { userId: scene.users.member.id, teamId: standalone, role: 'MEMBER' }),
  ];
  t.truthy(ownerMembership);
  const standaloneSet = await call('PATCH', `/v2/teams/${standalone}/memberships/${memberMembership}`, {
    token: owner.apiKey,
    body: { customRoleId: own },
  });
  t.is(standaloneSet.status, 400);
});

test('nobody but an owner changes the custom role of their own membership', async (t) => {
  const scene = await buildScene(knex(), { owner: { org: 'OWNER' }, admin: { org: 'ADMIN' } });
  const powerful = await insertCustomRole(knex(), scene.orgId, ['*.*']);
  isForbidden(
    t,
    await call('PATCH', `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.admin}`, {
      token: scene.users.admin.apiKey,
      body: { customRoleId: powerful },
    }),
    /custom role of your own membership/,
  );
  const byOwner = await call(
    'PATCH',
    `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.owner}`,
    {
      token: scene.users.owner.apiKey,
      body: { customRoleId: powerful },
    },
  );
  t.is(byOwner.status, 200);
});

test("an organization team's members must belong to the organization (an invitation is enough)", async (t) => {
  const scene = await buildScene(knex(), { admin: { org: 'ADMIN' } });
  const stranger = await insertUser(knex());
  // Someone the admin knows (they share another team) but who is not in the organization.
  const acquaintance = await insertUser(knex());
  const otherTeam = await insertTeam(knex(), null);
  await insertMembership(knex(), { userId: scene.users.admin.id, teamId: otherTeam, role: 'MEMBER' });
  await insertMembership(knex(), { userId: acquaintance.id, teamId: otherTeam, role: 'MEMBER' });
  for (const path of teamPaths(scene.orgId, scene.teamId)) {
    const unknown = await call('POST', path, {
      token: scene.users.admin.apiKey,
      body: { userId: stranger.id, role: 'MEMBER' },
    });
    t.is(unknown.status, 404);
    t.is(unknown.body.error.message, 'User not found');
    for (const body of [
      { userId: acquaintance.id, role: 'MEMBER' },
      { email: acquaintance.email, role: 'MEMBER' },
      { email: stranger.email, role: 'MEMBER' },
    ]) {
      const refused = await call('POST', path, { token: scene.users.admin.apiKey, body });
      t.is(refused.status, 400);
      t.is(
        refused.body.error.message,
        'The user must be a member of the organization first (an invitation is enough)',
      );
      t.is(refused.body.error.details[0].field, 'userId' in body ? 'body.userId' : 'body.email');
    }
  }
  const invited = await call('POST', `/v2/organizations/${scene.orgId}/memberships`, {
    token: scene.users.admin.apiKey,
    body: { email: stranger.email, role: 'MEMBER' },
  });
  t.is(invited.status, 201);
  t.false(invited.body.data.accepted);
  // Invited (pending) to the organization: a pending team invitation to the same address.
  const pendingTeam = await call('POST', `/v2/teams/${scene.teamId}/memberships`, {
    token: scene.users.admin.apiKey,
    body: { email: stranger.email, role: 'MEMBER', accepted: true },
  });
  t.is(pendingTeam.status, 201);
  t.false(pendingTeam.body.data.accepted);
  // The team's invitation waits for the organization's.
  const early = await call('POST', `/v2/me/invitations/${pendingTeam.body.data.id}/accept`, {
    token: stranger.apiKey,
  });
  t.is(early.status, 409);
  t.is(
    (await call('POST', `/v2/me/invitations/${invited.body.data.id}/accept`, { token: stranger.apiKey }))
      .status,
    200,
  );
  t.is(
    (await call('POST', `/v2/me/invitations/${pendingTeam.body.data.id}/accept`, { token: stranger.apiKey }))
      .status,
    200,
  );
  const again = await call('POST', `/v2/teams/${scene.teamId}/memberships`, {
    token: scene.users.admin.apiKey,
    body: { userId: stranger.id, role: 'MEMBER' },
  });
  t.is(again.status, 409);
  // An accepted member of the organization joins another of its teams directly.
  const secondTeam = await insertTeam(knex(), scene.orgId);
  await insertMembership(knex(), { userId: scene.users.admin.id, teamId: secondTeam, role: 'ADMIN' });
  const added = await call('POST', `/v2/organizations/${scene.orgId}/teams/${secondTeam}/memberships`, {
    token: scene.users.admin.apiKey,
    body: { userId: stranger.id, role: 'MEMBER' },
  });
  t.is(added.status, 201);
  t.true(added.body.data.accepted);
});
