import test from 'ava';
import { whileLocked } from '../support/database.ts';
import { insertCustomRole } from '../support/factories.ts';
import { buildScene, setUpWorld } from '../support/world.ts';

/**
 * A removal judges the memberships it removes as they are when it removes them: a role changed
 * by another transaction between the removal's check and its delete is seen (the check and the
 * delete run in one transaction, on locked rows); a role change judges the target's role, the
 * caller's own and the other owners likewise, on locked rows. Each test holds such a change uncommitted in a
 * transaction of its own until the removal waits for its lock, then commits it. Postgres only: the
 * interleaving needs two connections, which PGlite has not.
 */

const world = setUpWorld(test);
const { call, knex } = world;
const race = process.env.DATABASE_URL ? test.serial : test.skip;

const setRole = (membershipId: number, role: string) => (trx: import('knex').Knex.Transaction) =>
  trx('memberships')
    .where({ id: membershipId })
    .update({ role })
    .then(() => undefined);

race(
  'removing from an organization a member made admin of one of its teams meanwhile is refused',
  async (t) => {
    const s = await buildScene(
      knex(),
      {
        owner: { org: 'OWNER', team: 'OWNER' },
        remover: { org: 'MEMBER', permissions: ['organization.remove'] },
        target: { org: 'MEMBER', team: 'MEMBER' },
      },
      { pbacEnabled: true },
    );
    const { result, waited } = await whileLocked(knex(), setRole(s.teamMembership.target!, 'ADMIN'), () =>
      call('DELETE', `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`, {
        token: s.users.remover.apiKey,
      }),
    );
    t.true(waited, 'the removal waited for the team membership');
    t.is(result.status, 403, JSON.stringify(result.body));
    t.is(
      result.body.error.message,
      'Only an organization admin or owner can remove from the organization a member who is an admin of one of its teams',
    );
    const kept = await knex()('memberships')
      .whereIn('id', [s.orgMembership.target!, s.teamMembership.target!])
      .orderBy('id')
      .pluck('role');
    t.deepEqual(kept, ['MEMBER', 'ADMIN'], 'both memberships stay');
  },
);

race('removing an organization member made owner meanwhile is refused to an admin', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER' },
    admin: { org: 'ADMIN' },
    target: { org: 'MEMBER' },
  });
  const { result, waited } = await whileLocked(knex(), setRole(s.orgMembership.target!, 'OWNER'), () =>
    call('DELETE', `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`, {
      token: s.users.admin.apiKey,
    }),
  );
  t.true(waited, 'the removal waited for the membership');
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(
    result.body.error.message,
    'You cannot remove a member whose role (OWNER) is higher than your own (ADMIN)',
  );
  t.is((await knex()('memberships').where({ id: s.orgMembership.target }).pluck('role'))[0], 'OWNER');
});

race('removing a team member made team owner meanwhile is refused to a team admin', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    teamAdmin: { org: 'MEMBER', team: 'ADMIN' },
    target: { org: 'MEMBER', team: 'MEMBER' },
  });
  const { result, waited } = await whileLocked(knex(), setRole(s.teamMembership.target!, 'OWNER'), () =>
    call('DELETE', `/v2/teams/${s.teamId}/memberships/${s.teamMembership.target}`, {
      token: s.users.teamAdmin.apiKey,
    }),
  );
  t.true(waited, 'the removal waited for the membership');
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(
    result.body.error.message,
    'Only a team owner or an organization admin or owner can remove a team owner',
  );
  t.is((await knex()('memberships').where({ id: s.teamMembership.target }).pluck('role'))[0], 'OWNER');
});

const deleteRow = (membershipId: number) => (trx: import('knex').Knex.Transaction) =>
  trx('memberships')
    .where({ id: membershipId })
    .delete()
    .then(() => undefined);

// Two owners removing each other: the other removal is held, its delete of the remover's own
// membership uncommitted, while this one runs. The remover's role is judged as locked, not as the
// access check read it, so the organization (or team) keeps an owner.
race('an organization owner removed meanwhile cannot remove the other owner', async (t) => {
  const s = await buildScene(knex(), { first: { org: 'OWNER' }, second: { org: 'OWNER' } });
  const { result, waited } = await whileLocked(knex(), deleteRow(s.orgMembership.first!), () =>
    call('DELETE', `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.second}`, {
      token: s.users.first.apiKey,
    }),
  );
  t.true(waited, "the removal waited for the remover's own membership");
  t.is(result.status, 403, JSON.stringify(result.body));
  // The route's requirement, judged on the locked rows, refuses first, as it would after the removal.
  t.is(
    result.body.error.message,
    'requires organization role MEMBER; caller is not a member of the organization',
  );
  t.deepEqual(
    await knex()('memberships').where({ organization_id: s.orgId }).pluck('id'),
    [s.orgMembership.second],
    'one owner stays',
  );
});

race('a team owner removed meanwhile cannot remove the other team owner', async (t) => {
  const s = await buildScene(knex(), {
    first: { org: 'MEMBER', team: 'OWNER' },
    second: { org: 'MEMBER', team: 'OWNER' },
  });
  const { result, waited } = await whileLocked(knex(), deleteRow(s.teamMembership.first!), () =>
    call('DELETE', `/v2/teams/${s.teamId}/memberships/${s.teamMembership.second}`, {
      token: s.users.first.apiKey,
    }),
  );
  t.true(waited, "the removal waited for the remover's own membership");
  t.is(result.status, 403, JSON.stringify(result.body));
  // The route's requirement, judged on the locked rows, refuses first, as it would after the removal.
  t.is(
    result.body.error.message,
    'requires team role MEMBER or organization role ADMIN; caller is not a member of the team',
  );
  t.deepEqual(
    await knex()('memberships').where({ team_id: s.teamId }).pluck('id'),
    [s.teamMembership.second],
    'one team owner stays',
  );
});

// Adding to a team of the organization while the member is removed from the organization: the add
// waits for the removal and is refused, so no team membership outlives the organization membership.
race('adding to a team someone removed from the organization meanwhile is refused', async (t) => {
  const s = await buildScene(knex(), { owner: { org: 'OWNER', team: 'OWNER' }, target: { org: 'MEMBER' } });
  const { result, waited } = await whileLocked(knex(), deleteRow(s.orgMembership.target!), () =>
    call('POST', `/v2/teams/${s.teamId}/memberships`, {
      token: s.users.owner.apiKey,
      body: { userId: s.users.target.id, role: 'MEMBER' },
    }),
  );
  t.true(waited, 'the add waited for the organization membership');
  t.is(result.status, 400, JSON.stringify(result.body));
  t.is(
    result.body.error.message,
    'The user must be a member of the organization first (an invitation is enough)',
  );
  t.deepEqual(await knex()('memberships').where({ user_id: s.users.target.id }).pluck('id'), []);
});

// The other order: the add goes first (held uncommitted, as the add locks it) and the removal
// waits for it, then takes the new team membership along.
race(
  'removing from the organization someone being added to a team meanwhile takes that membership along',
  async (t) => {
    const s = await buildScene(knex(), { owner: { org: 'OWNER', team: 'OWNER' }, target: { org: 'MEMBER' } });
    const add = async (trx: import('knex').Knex.Transaction) => {
      await trx('memberships').where({ id: s.orgMembership.target }).forShare().first('id');
      await trx('memberships').insert({
        user_id: s.users.target.id,
        team_id: s.teamId,
        role: 'MEMBER',
        accepted: true,
      });
    };
    const { result, waited } = await whileLocked(knex(), add, () =>
      call('DELETE', `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`, {
        token: s.users.owner.apiKey,
      }),
    );
    t.true(waited, 'the removal waited for the add');
    t.true(result.status < 300, JSON.stringify(result.body));
    t.deepEqual(await knex()('memberships').where({ user_id: s.users.target.id }).pluck('id'), []);
  },
);

const patchRole = (path: string, apiKey: string, role: string) =>
  call('PATCH', path, { token: apiKey, body: { role } });

// Two owners demoting at once: the other owner's demotion is held, uncommitted, while this owner
// demotes themselves. The other owners are counted as the change locks them, not before it, so
// one owner stays.
race('two organization owners demoting at once leave one owner', async (t) => {
  const s = await buildScene(knex(), { first: { org: 'OWNER' }, second: { org: 'OWNER' } });
  const { result, waited } = await whileLocked(knex(), setRole(s.orgMembership.second!, 'ADMIN'), () =>
    patchRole(
      `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.first}`,
      s.users.first.apiKey,
      'ADMIN',
    ),
  );
  t.true(waited, 'the change waited for the other owner');
  t.is(result.status, 409, JSON.stringify(result.body));
  t.is(result.body.error.message, 'The organization must keep at least one owner');
  t.deepEqual(
    await knex()('memberships').where({ organization_id: s.orgId, role: 'OWNER' }).pluck('id'),
    [s.orgMembership.first],
    'one owner stays',
  );
});

race('two team owners demoting at once leave one team owner', async (t) => {
  const s = await buildScene(knex(), {
    first: { org: 'MEMBER', team: 'OWNER' },
    second: { org: 'MEMBER', team: 'OWNER' },
  });
  const { result, waited } = await whileLocked(knex(), setRole(s.teamMembership.second!, 'ADMIN'), () =>
    patchRole(`/v2/teams/${s.teamId}/memberships/${s.teamMembership.first}`, s.users.first.apiKey, 'ADMIN'),
  );
  t.true(waited, 'the change waited for the other team owner');
  t.is(result.status, 409, JSON.stringify(result.body));
  t.is(result.body.error.message, 'The team must keep at least one owner');
  t.deepEqual(
    await knex()('memberships').where({ team_id: s.teamId, role: 'OWNER' }).pluck('id'),
    [s.teamMembership.first],
    'one team owner stays',
  );
});

// An owner demoting themselves while the other owner is removed: the removal is held, uncommitted.
race('an owner demoting themselves while the other owner is removed is refused', async (t) => {
  const s = await buildScene(knex(), { first: { org: 'OWNER' }, second: { org: 'OWNER' } });
  const { result, waited } = await whileLocked(knex(), deleteRow(s.orgMembership.second!), () =>
    patchRole(
      `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.first}`,
      s.users.first.apiKey,
      'ADMIN',
    ),
  );
  t.true(waited, 'the change waited for the removed owner');
  t.is(result.status, 409, JSON.stringify(result.body));
  t.is(result.body.error.message, 'The organization must keep at least one owner');
  t.deepEqual(
    await knex()('memberships').where({ organization_id: s.orgId, role: 'OWNER' }).pluck('id'),
    [s.orgMembership.first],
    'one owner stays',
  );
});

// The role-assignment rules judge the target's role and the caller's own as the change locks them:
// a change committed meanwhile is judged as committed, not as the access check read it.
race('an admin cannot change an organization member made owner meanwhile', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER' },
    admin: { org: 'ADMIN' },
    target: { org: 'MEMBER' },
  });
  const { result, waited } = await whileLocked(knex(), setRole(s.orgMembership.target!, 'OWNER'), () =>
    patchRole(
      `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
      s.users.admin.apiKey,
      'ADMIN',
    ),
  );
  t.true(waited, 'the change waited for the membership');
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(result.body.error.message, 'An admin cannot change the role of an existing owner');
  t.is((await knex()('memberships').where({ id: s.orgMembership.target }).pluck('role'))[0], 'OWNER');
});

race('a team admin cannot change a team member made team owner meanwhile', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    teamAdmin: { org: 'MEMBER', team: 'ADMIN' },
    target: { org: 'MEMBER', team: 'MEMBER' },
  });
  const { result, waited } = await whileLocked(knex(), setRole(s.teamMembership.target!, 'OWNER'), () =>
    patchRole(
      `/v2/teams/${s.teamId}/memberships/${s.teamMembership.target}`,
      s.users.teamAdmin.apiKey,
      'ADMIN',
    ),
  );
  t.true(waited, 'the change waited for the membership');
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(result.body.error.message, 'An admin cannot change the role of an existing owner');
  t.is((await knex()('memberships').where({ id: s.teamMembership.target }).pluck('role'))[0], 'OWNER');
});

race('an organization admin demoted meanwhile cannot make a member admin', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER' },
    admin: { org: 'ADMIN' },
    target: { org: 'MEMBER' },
  });
  const { result, waited } = await whileLocked(knex(), setRole(s.orgMembership.admin!, 'MEMBER'), () =>
    patchRole(
      `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
      s.users.admin.apiKey,
      'ADMIN',
    ),
  );
  t.true(waited, "the change waited for the caller's own membership");
  t.is(result.status, 403, JSON.stringify(result.body));
  // The route's requirement (ADMIN), judged on the locked row, refuses first, as it would after the demotion.
  t.is(result.body.error.message, "requires organization role ADMIN; caller's organization role is MEMBER");
  t.is((await knex()('memberships').where({ id: s.orgMembership.target }).pluck('role'))[0], 'MEMBER');
});

// Two owners demoting each other: the other owner's demotion of this one is held, uncommitted.
race('an owner demoted meanwhile cannot demote the other owner', async (t) => {
  const s = await buildScene(knex(), { first: { org: 'OWNER' }, second: { org: 'OWNER' } });
  const { result, waited } = await whileLocked(knex(), setRole(s.orgMembership.first!, 'ADMIN'), () =>
    patchRole(
      `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.second}`,
      s.users.first.apiKey,
      'ADMIN',
    ),
  );
  t.true(waited, "the change waited for the caller's own membership");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(result.body.error.message, 'An admin cannot change the role of an existing owner');
  t.deepEqual(
    await knex()('memberships').where({ organization_id: s.orgId, role: 'OWNER' }).pluck('id'),
    [s.orgMembership.second],
    'one owner stays',
  );
});

race('a team owner removed meanwhile cannot demote the other team owner', async (t) => {
  const s = await buildScene(knex(), {
    first: { org: 'MEMBER', team: 'OWNER' },
    second: { org: 'MEMBER', team: 'OWNER' },
  });
  const { result, waited } = await whileLocked(knex(), deleteRow(s.teamMembership.first!), () =>
    patchRole(`/v2/teams/${s.teamId}/memberships/${s.teamMembership.second}`, s.users.first.apiKey, 'ADMIN'),
  );
  t.true(waited, "the change waited for the caller's own membership");
  t.is(result.status, 403, JSON.stringify(result.body));
  // The route's requirement, judged on the locked rows, refuses first, as it would after the removal.
  t.is(
    result.body.error.message,
    'requires team role ADMIN or organization role ADMIN; caller is not a member of the team',
  );
  t.deepEqual(
    await knex()('memberships').where({ team_id: s.teamId, role: 'OWNER' }).pluck('id'),
    [s.teamMembership.second],
    'one team owner stays',
  );
});

race('an owner demoted meanwhile cannot change the custom role of their own membership', async (t) => {
  const s = await buildScene(knex(), { first: { org: 'OWNER' }, second: { org: 'OWNER' } });
  const powerful = await insertCustomRole(knex(), s.orgId, ['*.*']);
  const { result, waited } = await whileLocked(knex(), setRole(s.orgMembership.first!, 'ADMIN'), () =>
    call('PATCH', `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.first}`, {
      token: s.users.first.apiKey,
      body: { customRoleId: powerful },
    }),
  );
  t.true(waited, "the change waited for the caller's own membership");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(result.body.error.message, 'You cannot change the custom role of your own membership');
  t.is((await knex()('memberships').where({ id: s.orgMembership.first }).pluck('custom_role_id'))[0], null);
});

// The route's own requirement and the no-escalation rule are judged on the caller's custom role,
// and on the one assigned, as the change locks them: a change of a role's permissions takes the
// role's row lock, and is held here, uncommitted, while the change runs.
const customRoleOf = async (membershipId: number): Promise<string | null> =>
  (await knex()('memberships').where({ id: membershipId }).pluck('custom_role_id'))[0] as string | null;

/** What a change of a role's permissions does: the role's row lock, then the permissions. */
const editPermissions =
  (roleId: string, edit: { remove?: string; add?: string }) =>
  async (trx: import('knex').Knex.Transaction) => {
    await trx('roles').where({ id: roleId }).update({ updated_at: trx.fn.now() });
    if (edit.remove)
      await trx('role_permissions').where({ role_id: roleId, permission: edit.remove }).delete();
    if (edit.add) await trx('role_permissions').insert({ role_id: roleId, permission: edit.add });
  };

const assignCustomRole = (path: string, apiKey: string, customRoleId: string) =>
  call('PATCH', path, { token: apiKey, body: { customRoleId } });

race('a caller whose permission to change roles is taken meanwhile is refused', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      changer: { org: 'MEMBER', permissions: ['organization.changeMemberRole'] },
      target: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const reader = await insertCustomRole(knex(), s.orgId, ['organization.read']);
  const changerRole = (await customRoleOf(s.orgMembership.changer!))!;
  const { result, waited } = await whileLocked(
    knex(),
    editPermissions(changerRole, { remove: 'organization.changeMemberRole' }),
    () =>
      assignCustomRole(
        `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
        s.users.changer.apiKey,
        reader,
      ),
  );
  t.true(waited, "the change waited for the caller's custom role");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(
    result.body.error.message,
    "requires organization role ADMIN or permission organization.changeMemberRole; caller's organization role is MEMBER",
  );
  t.is(await customRoleOf(s.orgMembership.target!), null, 'the target keeps no custom role');
});

race('a team caller whose custom role is taken off meanwhile is refused', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER', team: 'OWNER' },
      changer: { org: 'MEMBER', team: 'MEMBER', permissions: ['team.changeMemberRole'] },
      target: { org: 'MEMBER', team: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const reader = await insertCustomRole(knex(), s.orgId, ['team.read']);
  const takeOff = (trx: import('knex').Knex.Transaction) =>
    trx('memberships')
      .whereIn('id', [s.orgMembership.changer!, s.teamMembership.changer!])
      .update({ custom_role_id: null })
      .then(() => undefined);
  const { result, waited } = await whileLocked(knex(), takeOff, () =>
    assignCustomRole(
      `/v2/teams/${s.teamId}/memberships/${s.teamMembership.target}`,
      s.users.changer.apiKey,
      reader,
    ),
  );
  t.true(waited, "the change waited for the caller's own memberships");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(
    result.body.error.message,
    "requires team role ADMIN or organization role ADMIN or permission team.changeMemberRole; caller's team role is MEMBER",
  );
  t.is(await customRoleOf(s.teamMembership.target!), null, 'the target keeps no custom role');
});

race('a caller whose custom role loses a permission of the role assigned meanwhile is refused', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      changer: { org: 'MEMBER', permissions: ['organization.changeMemberRole', 'organization.invite'] },
      target: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const inviter = await insertCustomRole(knex(), s.orgId, ['organization.invite']);
  const changerRole = (await customRoleOf(s.orgMembership.changer!))!;
  const { result, waited } = await whileLocked(
    knex(),
    editPermissions(changerRole, { remove: 'organization.invite' }),
    () =>
      assignCustomRole(
        `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
        s.users.changer.apiKey,
        inviter,
      ),
  );
  t.true(waited, "the change waited for the caller's custom role");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(result.body.error.message, 'You cannot grant permissions you do not hold: organization.invite');
  t.is(await customRoleOf(s.orgMembership.target!), null, 'the target keeps no custom role');
});

race('a role that gains a permission the caller lacks meanwhile is not assigned', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      changer: { org: 'MEMBER', permissions: ['organization.changeMemberRole', 'organization.invite'] },
      target: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const inviter = await insertCustomRole(knex(), s.orgId, ['organization.invite']);
  const { result, waited } = await whileLocked(
    knex(),
    editPermissions(inviter, { add: 'organization.remove' }),
    () =>
      assignCustomRole(
        `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
        s.users.changer.apiKey,
        inviter,
      ),
  );
  t.true(waited, 'the change waited for the role assigned');
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(result.body.error.message, 'You cannot grant permissions you do not hold: organization.remove');
  t.is(await customRoleOf(s.orgMembership.target!), null, 'the target keeps no custom role');
});

race('a role deleted meanwhile is not found', async (t) => {
  const s = await buildScene(
    knex(),
    { owner: { org: 'OWNER' }, target: { org: 'MEMBER' } },
    { pbacEnabled: true },
  );
  const doomed = await insertCustomRole(knex(), s.orgId, ['organization.read']);
  const remove = (trx: import('knex').Knex.Transaction) =>
    trx('roles')
      .where({ id: doomed })
      .delete()
      .then(() => undefined);
  const { result, waited } = await whileLocked(knex(), remove, () =>
    assignCustomRole(
      `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
      s.users.owner.apiKey,
      doomed,
    ),
  );
  t.true(waited, 'the change waited for the role assigned');
  t.is(result.status, 404, JSON.stringify(result.body));
  t.is(result.body.error.message, 'Role not found');
  t.is(await customRoleOf(s.orgMembership.target!), null, 'the target keeps no custom role');
});

// A change of the caller's role's permissions that leaves what this change needs: it goes through.
race('a caller whose custom role loses an unneeded permission meanwhile still assigns', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      changer: {
        org: 'MEMBER',
        permissions: ['organization.changeMemberRole', 'organization.invite', 'organization.remove'],
      },
      target: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const inviter = await insertCustomRole(knex(), s.orgId, ['organization.invite']);
  const changerRole = (await customRoleOf(s.orgMembership.changer!))!;
  const { result, waited } = await whileLocked(
    knex(),
    editPermissions(changerRole, { remove: 'organization.remove' }),
    () =>
      assignCustomRole(
        `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
        s.users.changer.apiKey,
        inviter,
      ),
  );
  t.true(waited, "the change waited for the caller's custom role");
  t.is(result.status, 200, JSON.stringify(result.body));
  t.is(await customRoleOf(s.orgMembership.target!), inviter);
});

// A removal judges the route's own requirement (any member to leave; ADMIN or the family's
// `*.remove` permission to remove someone else) on the remover's memberships, custom roles and the
// organization's PBAC switch as it locks them, like a role change: what is taken from the remover
// meanwhile is judged as committed, with the 403 the same request gets afterwards.
const removeMember = (path: string, apiKey: string) => call('DELETE', path, { token: apiKey });

const membershipExists = async (membershipId: number): Promise<boolean> =>
  (await knex()('memberships').where({ id: membershipId }).first('id')) !== undefined;

race('a remover whose organization.remove permission is taken meanwhile is refused', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      remover: { org: 'MEMBER', permissions: ['organization.remove'] },
      target: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const removerRole = (await customRoleOf(s.orgMembership.remover!))!;
  const { result, waited } = await whileLocked(
    knex(),
    editPermissions(removerRole, { remove: 'organization.remove' }),
    () =>
      removeMember(
        `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
        s.users.remover.apiKey,
      ),
  );
  t.true(waited, "the removal waited for the remover's custom role");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(
    result.body.error.message,
    "requires organization role ADMIN or permission organization.remove; caller's organization role is MEMBER",
  );
  t.true(await membershipExists(s.orgMembership.target!), 'the target is still a member');
});

race('a team remover whose custom role is taken off meanwhile is refused', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER', team: 'OWNER' },
      remover: { org: 'MEMBER', team: 'MEMBER', permissions: ['team.remove'] },
      target: { org: 'MEMBER', team: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const takeOff = (trx: import('knex').Knex.Transaction) =>
    trx('memberships')
      .whereIn('id', [s.orgMembership.remover!, s.teamMembership.remover!])
      .update({ custom_role_id: null })
      .then(() => undefined);
  const { result, waited } = await whileLocked(knex(), takeOff, () =>
    removeMember(`/v2/teams/${s.teamId}/memberships/${s.teamMembership.target}`, s.users.remover.apiKey),
  );
  t.true(waited, "the removal waited for the remover's own memberships");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(
    result.body.error.message,
    "requires team role ADMIN or organization role ADMIN or permission team.remove; caller's team role is MEMBER",
  );
  t.true(await membershipExists(s.teamMembership.target!), 'the target is still a team member');
});

race('an organization admin demoted meanwhile cannot remove a member', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER' },
    admin: { org: 'ADMIN' },
    target: { org: 'MEMBER' },
  });
  const { result, waited } = await whileLocked(knex(), setRole(s.orgMembership.admin!, 'MEMBER'), () =>
    removeMember(`/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`, s.users.admin.apiKey),
  );
  t.true(waited, "the removal waited for the remover's own membership");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(result.body.error.message, "requires organization role ADMIN; caller's organization role is MEMBER");
  t.true(await membershipExists(s.orgMembership.target!), 'the target is still a member');
});

race('a team admin demoted meanwhile cannot remove a team member', async (t) => {
  const s = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    teamAdmin: { org: 'MEMBER', team: 'ADMIN' },
    target: { org: 'MEMBER', team: 'MEMBER' },
  });
  const { result, waited } = await whileLocked(knex(), setRole(s.teamMembership.teamAdmin!, 'MEMBER'), () =>
    removeMember(`/v2/teams/${s.teamId}/memberships/${s.teamMembership.target}`, s.users.teamAdmin.apiKey),
  );
  t.true(waited, "the removal waited for the remover's own membership");
  t.is(result.status, 403, JSON.stringify(result.body));
  t.is(
    result.body.error.message,
    "requires team role ADMIN or organization role ADMIN; caller's team role is MEMBER",
  );
  t.true(await membershipExists(s.teamMembership.target!), 'the target is still a team member');
});

/** What turning the organization's PBAC switch does: the organization's row locked, then changed. */
const switchPbac =
  (organizationId: number, pbacEnabled: boolean) => async (trx: import('knex').Knex.Transaction) => {
    await trx('organizations').where({ id: organizationId }).forUpdate().first('id');
    await trx('organizations')
      .where({ id: organizationId })
      .update({ pbac_enabled: pbacEnabled, updated_at: trx.fn.now() });
  };

race(
  "a remover whose permission goes with the organization's PBAC switch meanwhile is refused",
  async (t) => {
    const s = await buildScene(
      knex(),
      {
        owner: { org: 'OWNER' },
        remover: { org: 'MEMBER', permissions: ['organization.remove'] },
        target: { org: 'MEMBER' },
      },
      { pbacEnabled: true },
    );
    const { result, waited } = await whileLocked(knex(), switchPbac(s.orgId, false), () =>
      removeMember(
        `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
        s.users.remover.apiKey,
      ),
    );
    t.true(waited, "the removal waited for the organization's row");
    t.is(result.status, 403, JSON.stringify(result.body));
    t.is(result.body.error.message, "requires organization role ADMIN; caller's organization role is MEMBER");
    t.true(await membershipExists(s.orgMembership.target!), 'the target is still a member');
  },
);

race(
  "a changer whose permission goes with the organization's PBAC switch meanwhile is refused",
  async (t) => {
    const s = await buildScene(
      knex(),
      {
        owner: { org: 'OWNER' },
        changer: { org: 'MEMBER', permissions: ['organization.changeMemberRole', 'organization.read'] },
        target: { org: 'MEMBER' },
      },
      { pbacEnabled: true },
    );
    const reader = await insertCustomRole(knex(), s.orgId, ['organization.read']);
    const { result, waited } = await whileLocked(knex(), switchPbac(s.orgId, false), () =>
      assignCustomRole(
        `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
        s.users.changer.apiKey,
        reader,
      ),
    );
    t.true(waited, "the change waited for the organization's row");
    t.is(result.status, 403, JSON.stringify(result.body));
    t.is(result.body.error.message, "requires organization role ADMIN; caller's organization role is MEMBER");
    t.is(await customRoleOf(s.orgMembership.target!), null, 'the target keeps no custom role');
  },
);

// Changes that leave what the removal needs: it goes through, as it does today.
race('a remover whose custom role loses an unneeded permission meanwhile still removes', async (t) => {
  const s = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      remover: { org: 'MEMBER', permissions: ['organization.remove', 'organization.invite'] },
      target: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const removerRole = (await customRoleOf(s.orgMembership.remover!))!;
  const { result, waited } = await whileLocked(
    knex(),
    editPermissions(removerRole, { remove: 'organization.invite' }),
    () =>
      removeMember(
        `/v2/organizations/${s.orgId}/memberships/${s.orgMembership.target}`,
        s.users.remover.apiKey,
      ),
  );
  t.true(waited, "the removal waited for the remover's custom role");
  t.is(result.status, 200, JSON.stringify(result.body));
  t.false(await membershipExists(s.orgMembership.target!), 'the target is removed');
});

race('a member leaving while the PBAC switch is turned off still leaves', async (t) => {
  const s = await buildScene(
    knex(),
    { owner: { org: 'OWNER' }, leaver: { org: 'MEMBER', permissions: ['organization.read'] } },
    { pbacEnabled: true },
  );
  const { result, waited } = await whileLocked(knex(), switchPbac(s.orgId, false), () =>
    removeMember(`/v2/organizations/${s.orgId}/memberships/${s.orgMembership.leaver}`, s.users.leaver.apiKey),
  );
  t.true(waited, "the removal waited for the organization's row");
  t.is(result.status, 200, JSON.stringify(result.body));
  t.false(await membershipExists(s.orgMembership.leaver!), 'the member left');
});
