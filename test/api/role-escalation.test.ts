import test, { type ExecutionContext } from 'ava';
import type { ApiResponse } from '../support/http.ts';
import { buildScene, setUpWorld } from '../support/world.ts';

/**
 * Roles: PBAC cannot be escalated (a caller puts on a custom role only permissions they hold),
 * reserved and duplicate role names (400), PATCH of a role's permissions, and DELETE of permissions
 * by body or by query. Each refusal is made by a caller who passes the endpoint's role or PBAC
 * check, so it fails if the rule's check is removed.
 */

const { call, knex } = setUpWorld(test);

const GRANT = 'You cannot grant permissions you do not hold: ';
const invalid = (p: string) =>
  `Permission '${p}' must be a valid permission string in format 'resource.action' (e.g., 'eventType.read', 'booking.create')`;

/**
 * PBAC on. `delegate` is an organization MEMBER whose custom role holds role.create, role.update
 * and organization.changeMemberRole (the caller): it reaches the role endpoints through
 * PBAC and holds what a member holds organization-wide plus those three.
 */
const scene = () =>
  buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      admin: { org: 'ADMIN' },
      delegate: {
        org: 'MEMBER',
        permissions: ['role.create', 'role.update', 'organization.changeMemberRole'],
      },
    },
    { pbacEnabled: true },
  );

function refused(t: ExecutionContext, response: ApiResponse, notHeld: string) {
  t.is(response.status, 403, JSON.stringify(response.body));
  t.is(response.body.error.code, 'Forbidden');
  t.is(response.body.error.message, `${GRANT}${notHeld}`);
}

function badRequest(t: ExecutionContext, response: ApiResponse, message?: string | RegExp) {
  t.is(response.status, 400, JSON.stringify(response.body));
  t.is(response.body.error.code, 'BadRequest');
  if (typeof message === 'string') t.is(response.body.error.message, message);
  else if (message) t.regex(response.body.error.message, message);
}

async function createRole(orgId: number, token: string, body: Record<string, unknown>) {
  return call('POST', `/v2/organizations/${orgId}/roles`, { token, body });
}

async function customRoleCount(orgId: number): Promise<number> {
  const row = await knex()('roles').where({ organization_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

// ---- PBAC cannot be escalated --------------------------------------------------------------------

test('role creation: *.* and anything else not held is 403, listed in request order', async (t) => {
  const s = await scene();
  const before = await customRoleCount(s.orgId);
  refused(
    t,
    await createRole(s.orgId, s.users.delegate.apiKey, { name: 'Everything', permissions: ['*.*'] }),
    '*.*',
  );
  refused(
    t,
    await createRole(s.orgId, s.users.delegate.apiKey, {
      name: 'Mixed',
      permissions: ['booking.read', 'organization.remove', 'role.create', '*.*', 'team.*'],
    }),
    'booking.read, organization.remove, *.*, team.*',
  );
  t.is(await customRoleCount(s.orgId), before, 'nothing was created');
  // What the delegate holds organization-wide (its member role's role.read and team.read, and its
  // custom role) it may grant.
  const allowed = await createRole(s.orgId, s.users.delegate.apiKey, {
    name: 'Helpers',
    permissions: ['role.create', 'role.read', 'organization.changeMemberRole'],
  });
  t.is(allowed.status, 201, JSON.stringify(allowed.body));
  // An ADMIN holds admin_role: team.* and *.read yes, *.* and organization.* not.
  refused(t, await createRole(s.orgId, s.users.admin.apiKey, { name: 'A1', permissions: ['*.*'] }), '*.*');
  refused(
    t,
    await createRole(s.orgId, s.users.admin.apiKey, { name: 'A2', permissions: ['organization.*'] }),
    'organization.*',
  );
  t.is(
    (await createRole(s.orgId, s.users.admin.apiKey, { name: 'A3', permissions: ['team.*', '*.read'] }))
      .status,
    201,
  );
  // The OWNER holds everything.
  const byOwner = await createRole(s.orgId, s.users.owner.apiKey, {
    name: 'Everything',
    permissions: ['*.*'],
  });
  t.is(byOwner.status, 201);
  t.deepEqual(byOwner.body.data.permissions, ['*.*']);
});

test('a custom role counts toward what one holds only with PBAC on', async (t) => {
  for (const pbacEnabled of [true, false]) {
    const s = await buildScene(
      knex(),
      { admin: { org: 'ADMIN', permissions: ['organization.delete'] } },
      { pbacEnabled },
    );
    const response = await createRole(s.orgId, s.users.admin.apiKey, {
      name: 'Deleters',
      permissions: ['organization.delete'],
    });
    if (pbacEnabled) t.is(response.status, 201, JSON.stringify(response.body));
    else refused(t, response, 'organization.delete');
  }
});

test('role PATCH, POST and PUT of permissions: *.* is 403 and the role stays as it was', async (t) => {
  const s = await scene();
  const created = await createRole(s.orgId, s.users.owner.apiKey, {
    name: 'Readers',
    permissions: ['role.read'],
  });
  const role = `/v2/organizations/${s.orgId}/roles/${created.body.data.id}`;
  const token = s.users.delegate.apiKey;
  refused(t, await call('PATCH', role, { token, body: { permissions: ['role.read', '*.*'] } }), '*.*');
  refused(t, await call('POST', `${role}/permissions`, { token, body: { permissions: ['*.*'] } }), '*.*');
  refused(
    t,
    await call('PUT', `${role}/permissions`, { token, body: { permissions: ['team.remove', '*.*'] } }),
    'team.remove, *.*',
  );
  // A PATCH refused for its permissions changes nothing else either.
  refused(t, await call('PATCH', role, { token, body: { name: 'Renamed', permissions: ['*.*'] } }), '*.*');
  const after = await call('GET', role, { token: s.users.owner.apiKey });
  t.is(after.body.data.name, 'Readers');
  t.deepEqual(after.body.data.permissions, ['role.read']);

  t.is(
    (await call('POST', `${role}/permissions`, { token, body: { permissions: ['role.update'] } })).status,
    201,
  );
  const put = await call('PUT', `${role}/permissions`, {
    token,
    body: { permissions: ['team.read', 'role.create'] },
  });
  t.is(put.status, 200);
  t.deepEqual(put.body.data, ['role.create', 'team.read']);
  // A role carrying a permission the delegate lacks is out of its reach altogether: removing,
  // replacing, renaming and deleting it would take from others a power the delegate does not have.
  const owned = await createRole(s.orgId, s.users.owner.apiKey, {
    name: 'Powerful',
    permissions: ['*.*', 'team.read'],
  });
  const powerful = `/v2/organizations/${s.orgId}/roles/${owned.body.data.id}`;
  refused(
    t,
    await call('DELETE', `${powerful}/permissions`, { token, body: { permissions: ['*.*'] } }),
    '*.*',
  );
  refused(t, await call('DELETE', `${powerful}/permissions/team.read`, { token }), '*.*');
  refused(
    t,
    await call('PUT', `${powerful}/permissions`, { token, body: { permissions: ['team.read'] } }),
    '*.*',
  );
  refused(t, await call('PATCH', powerful, { token, body: { name: 'Renamed' } }), '*.*');
  const unchanged = await call('GET', powerful, { token: s.users.owner.apiKey });
  t.is(unchanged.body.data.name, 'Powerful');
  t.deepEqual(unchanged.body.data.permissions, ['*.*', 'team.read']);
  // The owner holds everything: it may change and remove the role.
  const removed = await call('DELETE', `${powerful}/permissions`, {
    token: s.users.owner.apiKey,
    body: { permissions: ['*.*'] },
  });
  t.is(removed.status, 200, JSON.stringify(removed.body));
  t.deepEqual(removed.body.data, ['team.read']);
});

test('deleting a custom role needs every permission it carries', async (t) => {
  const s = await buildScene(
    knex(),
    { owner: { org: 'OWNER' }, admin: { org: 'ADMIN' } },
    { pbacEnabled: true },
  );
  const owned = await createRole(s.orgId, s.users.owner.apiKey, {
    name: 'Deleters',
    permissions: ['organization.delete'],
  });
  const path = `/v2/organizations/${s.orgId}/roles/${owned.body.data.id}`;
  refused(t, await call('DELETE', path, { token: s.users.admin.apiKey }), 'organization.delete');
  t.is((await call('GET', path, { token: s.users.owner.apiKey })).status, 200, 'the role is still there');
  const mine = await createRole(s.orgId, s.users.admin.apiKey, {
    name: 'Readers',
    permissions: ['role.read'],
  });
  t.is(
    (
      await call('DELETE', `/v2/organizations/${s.orgId}/roles/${mine.body.data.id}`, {
        token: s.users.admin.apiKey,
      })
    ).status,
    200,
  );
  t.is((await call('DELETE', path, { token: s.users.owner.apiKey })).status, 200);
});

// ---- Names ---------------------------------------------------------------------------------------

test('reserved names are 400 on creation and on rename, in any case', async (t) => {
  const s = await scene();
  const token = s.users.owner.apiKey;
  for (const name of ['owner', 'Owner', 'admin_role', 'MEMBER', ' admin ']) {
    const response = await createRole(s.orgId, token, { name });
    badRequest(t, response, /body\.name may not be the name of a system or membership role/);
    t.is(response.body.error.details[0].field, 'body.name');
  }
  const created = await createRole(s.orgId, token, { name: 'Ownership' });
  t.is(created.status, 201, 'a name that merely contains one is fine');
  for (const name of ['OWNER', 'Member_Role']) {
    badRequest(
      t,
      await call('PATCH', `/v2/organizations/${s.orgId}/roles/${created.body.data.id}`, {
        token,
        body: { name },
      }),
      /may not be the name of a system or membership role/,
    );
  }
});

test('names are unique per organization ignoring case: creation and rename are 400', async (t) => {
  const s = await scene();
  const token = s.users.owner.apiKey;
  t.is((await createRole(s.orgId, token, { name: 'Schedulers' })).status, 201);
  badRequest(t, await createRole(s.orgId, token, { name: 'SCHEDULERS' }));
  const other = await createRole(s.orgId, token, { name: 'Planners' });
  badRequest(
    t,
    await call('PATCH', `/v2/organizations/${s.orgId}/roles/${other.body.data.id}`, {
      token,
      body: { name: 'schedulers' },
    }),
  );
  // Another organization may use the name.
  const elsewhere = await buildScene(knex(), { owner: { org: 'OWNER' } });
  t.is((await createRole(elsewhere.orgId, elsewhere.users.owner.apiKey, { name: 'schedulers' })).status, 201);
});

// ---- PATCH with permissions ------------------------------------------------------------------------

test('role PATCH takes permissions: replaces them, validated like creation', async (t) => {
  const s = await scene();
  const token = s.users.owner.apiKey;
  const created = await createRole(s.orgId, token, {
    name: 'Bookers',
    permissions: ['booking.read', 'booking.create'],
  });
  const role = `/v2/organizations/${s.orgId}/roles/${created.body.data.id}`;
  const patched = await call('PATCH', role, {
    token,
    body: { description: 'books', permissions: ['eventType.read', 'team.*'] },
  });
  t.is(patched.status, 200, JSON.stringify(patched.body));
  t.is(patched.body.data.description, 'books');
  t.deepEqual(patched.body.data.permissions, ['eventType.read', 'team.*']);
  t.deepEqual((await call('GET', `${role}/permissions`, { token })).body.data, ['eventType.read', 'team.*']);

  badRequest(
    t,
    await call('PATCH', role, { token, body: { permissions: ['team.read', 'eventType.invite'] } }),
    invalid('eventType.invite'),
  );
  t.deepEqual((await call('GET', `${role}/permissions`, { token })).body.data, ['eventType.read', 'team.*']);

  const emptied = await call('PATCH', role, { token, body: { permissions: [] } });
  t.deepEqual(emptied.body.data.permissions, []);
  // Without permissions, a PATCH leaves them alone.
  await call('PUT', `${role}/permissions`, { token, body: { permissions: ['schedule.read'] } });
  const renamed = await call('PATCH', role, { token, body: { name: 'Bookers 2' } });
  t.deepEqual(renamed.body.data.permissions, ['schedule.read']);
});

// ---- DELETE permissions by body or query -----------------------------------------------------------

test('DELETE permissions takes a body or ?permissions=a,b (validated, exactly one of the two)', async (t) => {
  const s = await scene();
  const token = s.users.owner.apiKey;
  const created = await createRole(s.orgId, token, {
    name: 'Many',
    permissions: ['booking.read', 'booking.create', 'team.read', 'schedule.read', 'eventType.*'],
  });
  const path = `/v2/organizations/${s.orgId}/roles/${created.body.data.id}/permissions`;

  const byBody = await call('DELETE', path, { token, body: { permissions: ['booking.read'] } });
  t.is(byBody.status, 200, JSON.stringify(byBody.body));
  t.deepEqual(byBody.body.data, ['booking.create', 'eventType.*', 'schedule.read', 'team.read']);

  const byQuery = await call('DELETE', `${path}?permissions=booking.create,eventType.*`, { token });
  t.is(byQuery.status, 200, JSON.stringify(byQuery.body));
  t.deepEqual(byQuery.body.data, ['schedule.read', 'team.read']);

  const encoded = await call('DELETE', `${path}?permissions=${encodeURIComponent('team.read')}`, { token });
  t.deepEqual(encoded.body.data, ['schedule.read']);

  badRequest(
    t,
    await call('DELETE', `${path}?permissions=schedule.read,eventType.invite`, { token }),
    invalid('eventType.invite'),
  );
  badRequest(t, await call('DELETE', `${path}?permissions=`, { token }), invalid(''));
  badRequest(t, await call('DELETE', path, { token, body: { permissions: ['nope'] } }), invalid('nope'));
  badRequest(
    t,
    await call('DELETE', path, { token }),
    /either|JSON body \{"permissions": \[\.\.\.\]\} or the query/,
  );
  badRequest(
    t,
    await call('DELETE', `${path}?permissions=schedule.read`, {
      token,
      body: { permissions: ['schedule.read'] },
    }),
    /not both/,
  );
  t.deepEqual((await call('GET', path, { token })).body.data, ['schedule.read'], 'refusals removed nothing');
});

test('the OpenAPI document shows the new inputs and the 403 rule', async (t) => {
  const document = (await call('GET', '/v2/openapi.json')).body;
  const roles = document.paths['/organizations/{orgId}/roles'];
  const role = document.paths['/organizations/{orgId}/roles/{roleId}'];
  const permissions = document.paths['/organizations/{orgId}/roles/{roleId}/permissions'];
  for (const operation of [roles.post, role.patch, permissions.post, permissions.put]) {
    t.regex(operation.description, /You cannot grant permissions you do not hold/);
  }
  const patchBody = role.patch.requestBody.content['application/json'].schema.$ref.split('/').pop();
  t.truthy(document.components.schemas[patchBody].properties.permissions);
  t.false(permissions.delete.requestBody.required);
  t.true(
    permissions.delete.parameters.some(
      (p: { name: string; in: string }) => p.name === 'permissions' && p.in === 'query',
    ),
  );
});
