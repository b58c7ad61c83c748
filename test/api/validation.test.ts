import test, { type ExecutionContext } from 'ava';
import { adminRoutes } from '../../services/api/src/routes/admin/index.ts';
import { apiKeyRoutes } from '../../services/api/src/routes/api-keys/index.ts';
import { meRoutes } from '../../services/api/src/routes/me/index.ts';
import { membershipRoutes } from '../../services/api/src/routes/memberships/index.ts';
import { rolePermissionRoutes } from '../../services/api/src/routes/role-permissions/index.ts';
import { roleRoutes } from '../../services/api/src/routes/roles/index.ts';
import { attendee, slotsQuery } from '../../services/api/src/routes/scheduling/schemas.ts';
import { teamRoutes } from '../../services/api/src/routes/teams/index.ts';
import { setUpWorld, buildScene, type Scene } from '../support/world.ts';
import { insertCustomRole, insertOrganization, insertTeam, insertUser } from '../support/factories.ts';
import { type ApiResponse, pool } from '../support/http.ts';

/**
 * Every body, query and path parameter is checked: wrong types and unknown fields are 400 with
 * details naming the field; unknown ids are 404 (a team of another organization too); nothing is
 * ever a 500.
 */

const { system, call } = setUpWorld(test);
let scene: Scene<'owner' | 'member'>;
let admin: { apiKey: string };
let foreignTeamId: number;
let roleId: string;

test.before(async () => {
  const knex = system.stores.db.knex;
  scene = await buildScene(knex, {
    owner: { org: 'OWNER', team: 'OWNER' },
    member: { org: 'MEMBER', team: 'MEMBER' },
  });
  admin = await insertUser(knex, { serviceAdmin: true });
  foreignTeamId = await insertTeam(knex, await insertOrganization(knex));
  roleId = await insertCustomRole(knex, scene.orgId, ['team.read']);
});

function badRequest(t: ExecutionContext, response: ApiResponse, field: string | RegExp) {
  t.is(response.status, 400, JSON.stringify(response.body));
  t.is(response.body.error.code, 'BadRequest');
  const fields: string[] = (response.body.error.details ?? []).map((d: { field: string }) => d.field);
  t.true(
    fields.some((f) => (typeof field === 'string' ? f === field : field.test(f))),
    `details ${JSON.stringify(fields)} should name ${field}`,
  );
}

const owner = () => scene.users.owner.apiKey;

test('path ids must be positive integers', async (t) => {
  badRequest(t, await call('GET', '/v2/organizations/abc/memberships', { token: owner() }), 'params.orgId');
  badRequest(t, await call('GET', '/v2/organizations/0/memberships', { token: owner() }), 'params.orgId');
  badRequest(
    t,
    await call('GET', `/v2/teams/${scene.teamId}/memberships/1.5`, { token: owner() }),
    'params.membershipId',
  );
  badRequest(t, await call('GET', '/v2/teams/-3', { token: owner() }), 'params.teamId');
  badRequest(t, await call('DELETE', '/v2/api-keys/x', { token: owner() }), 'params.id');
});

test('authentication comes before validation', async (t) => {
  const response = await call('POST', `/v2/organizations/${scene.orgId}/memberships`, {
    body: { bogus: true },
  });
  t.is(response.status, 401);
});

test('unknown ids: 404', async (t) => {
  for (const path of [
    '/v2/organizations/999999/memberships',
    '/v2/organizations/999999/roles',
    '/v2/teams/999999',
    '/v2/teams/999999/memberships',
    `/v2/organizations/${scene.orgId}/memberships/999999`,
    `/v2/teams/${scene.teamId}/memberships/999999`,
    `/v2/organizations/${scene.orgId}/roles/role_doesnotexist`,
    `/v2/organizations/${scene.orgId}/roles/role_doesnotexist/permissions`,
  ]) {
    const response = await call('GET', path, { token: owner() });
    t.is(response.status, 404, path);
    t.is(response.body.error.code, 'NotFound');
  }
  t.is((await call('DELETE', '/v2/api-keys/999999', { token: owner() })).status, 404);
  t.is(
    (
      await call('PATCH', '/v2/admin/organizations/999999', {
        token: admin.apiKey,
        body: { pbacEnabled: true },
      })
    ).status,
    404,
  );
  const noUser = await call('POST', `/v2/organizations/${scene.orgId}/memberships`, {
    token: owner(),
    body: { userId: 999999, role: 'MEMBER' },
  });
  t.is(noUser.status, 404);
  const noOwner = await call('POST', '/v2/admin/organizations', {
    token: admin.apiKey,
    body: { name: 'X', slug: 'x-no-owner', ownerUserId: 999999 },
  });
  t.is(noOwner.status, 404);
});

test('a team of another organization is 404, never a leak; so is a membership of another team', async (t) => {
  for (const path of [
    `/v2/organizations/${scene.orgId}/teams/${foreignTeamId}`,
    `/v2/organizations/${scene.orgId}/teams/${foreignTeamId}/memberships`,
    `/v2/organizations/${scene.orgId}/teams/${foreignTeamId}/memberships/1`,
  ]) {
    const response = await call('GET', path, { token: owner() });
    t.is(response.status, 404, path);
    t.is(response.body.error.message, 'Team not found');
  }
  // The org membership id is not a membership of the team.
  const crossed = await call('GET', `/v2/teams/${scene.teamId}/memberships/${scene.orgMembership.member}`, {
    token: owner(),
  });
  t.is(crossed.status, 404);
  // Another organization's role.
  const otherOrg = await insertOrganization(system.stores.db.knex);
  const foreignRole = await insertCustomRole(system.stores.db.knex, otherOrg, []);
  t.is(
    (await call('GET', `/v2/organizations/${scene.orgId}/roles/${foreignRole}`, { token: owner() })).status,
    404,
  );
  t.is(
    (await call('DELETE', `/v2/organizations/${scene.orgId}/roles/${foreignRole}`, { token: owner() }))
      .status,
    404,
  );
});

test('membership bodies: types, unknown fields, role values, userId xor email', async (t) => {
  const path = `/v2/organizations/${scene.orgId}/memberships`;
  const post = (body: unknown) => call('POST', path, { token: owner(), body });
  badRequest(t, await post({ userId: 1, role: 'MEMBER', extra: 1 }), 'body.extra');
  badRequest(t, await post({ userId: '1', role: 'MEMBER' }), 'body.userId');
  badRequest(t, await post({ userId: 1, role: 5 }), 'body.role');
  badRequest(t, await post({ userId: 1, role: 'boss' }), 'body.role');
  badRequest(t, await post({ userId: 1, role: 'MEMBER', accepted: 'yes' }), 'body.accepted');
  badRequest(t, await post({ role: 'MEMBER' }), 'body.userId');
  badRequest(t, await post({ userId: 1, email: 'a@example.test', role: 'MEMBER' }), 'body.userId');
  // Well-formed, but nobody accepts on the invitee's behalf (403, not a validation error).
  const acceptedForThem = await post({ email: 'a@example.test', role: 'MEMBER', accepted: true });
  t.is(acceptedForThem.status, 403);
  t.is(acceptedForThem.body.error.message, 'the invited user must accept the invitation');
  badRequest(t, await post({ email: 'not-an-email', role: 'MEMBER' }), 'body.email');
  badRequest(t, await post([]), 'body');
  badRequest(t, await call('POST', path, { token: owner() }), 'body');
  const item = `${path}/${scene.orgMembership.member}`;
  badRequest(
    t,
    await call('PATCH', item, { token: owner(), body: { role: 'MEMBER', userId: 3 } }),
    'body.userId',
  );
  badRequest(t, await call('PATCH', item, { token: owner(), body: { accepted: 1 } }), 'body.accepted');
  badRequest(
    t,
    await call('PATCH', item, { token: owner(), body: { customRoleId: 7 } }),
    'body.customRoleId',
  );
  badRequest(t, await call('DELETE', item, { token: owner(), body: { force: true } }), 'body.force');
});

test('lists: skip and take are checked, unknown query parameters refused', async (t) => {
  const path = `/v2/teams/${scene.teamId}/memberships`;
  badRequest(t, await call('GET', `${path}?take=251`, { token: owner() }), 'query.take');
  badRequest(t, await call('GET', `${path}?take=abc`, { token: owner() }), 'query.take');
  badRequest(t, await call('GET', `${path}?skip=-1`, { token: owner() }), 'query.skip');
  badRequest(t, await call('GET', `${path}?page=2`, { token: owner() }), 'query.page');
  badRequest(t, await call('GET', `${path}?take=1&take=2`, { token: owner() }), 'query.take');
  const one = await call('GET', `${path}?take=1`, { token: owner() });
  t.is(one.status, 200);
  t.is(one.body.data.length, 1);
  const second = await call('GET', `${path}?skip=1&take=1`, { token: owner() });
  t.is(second.body.data.length, 1);
  t.not(second.body.data[0].id, one.body.data[0].id);
  const all = await call('GET', path, { token: owner() });
  t.is(all.body.data.length, 2);
});

test('PATCH /v2/me: time zone, week start, locale, time format, username', async (t) => {
  const me = scene.users.member.apiKey;
  badRequest(
    t,
    await call('PATCH', '/v2/me', { token: me, body: { timeZone: 'Mars/Olympus' } }),
    'body.timeZone',
  );
  badRequest(
    t,
    await call('PATCH', '/v2/me', { token: me, body: { weekStart: 'Funday' } }),
    'body.weekStart',
  );
  badRequest(t, await call('PATCH', '/v2/me', { token: me, body: { locale: 'xx' } }), 'body.locale');
  badRequest(t, await call('PATCH', '/v2/me', { token: me, body: { timeFormat: 13 } }), 'body.timeFormat');
  badRequest(
    t,
    await call('PATCH', '/v2/me', { token: me, body: { email: 'new@example.test' } }),
    'body.email',
  );
  badRequest(
    t,
    await call('PATCH', '/v2/me', { token: me, body: { username: 'has space' } }),
    'body.username',
  );
  const taken = await call('PATCH', '/v2/me', {
    token: me,
    body: { username: `taken-${scene.users.owner.id}` },
  });
  t.is(taken.status, 200);
  const clash = await call('PATCH', '/v2/me', {
    token: owner(),
    body: { username: `TAKEN-${scene.users.owner.id}` },
  });
  t.is(clash.status, 409);
});

test('PATCH /v2/me: a zone in another case is stored and answered in its IANA spelling; aliases stay', async (t) => {
  const knex = system.stores.db.knex;
  const user = await insertUser(knex);
  const storedZone = async () =>
    (await knex('users').where({ id: user.id }).first('time_zone')).time_zone as string;
  for (const [typed, expected] of [
    ['europe/paris', 'Europe/Paris'],
    ['AMERICA/NEW_YORK', 'America/New_York'],
    ['utc', 'UTC'],
    // An alias Luxon accepts stays as typed: not resolved to another name (Asia/Calcutta).
    ['Asia/Kolkata', 'Asia/Kolkata'],
  ] as const) {
    const response = await call('PATCH', '/v2/me', { token: user.apiKey, body: { timeZone: typed } });
    t.is(response.status, 200, JSON.stringify(response.body));
    t.is(response.body.data.timeZone, expected, typed);
    t.is((await call('GET', '/v2/me', { token: user.apiKey })).body.data.timeZone, expected, typed);
    t.is(await storedZone(), expected, typed);
  }
  badRequest(
    t,
    await call('PATCH', '/v2/me', { token: user.apiKey, body: { timeZone: 'Not/AZone' } }),
    'body.timeZone',
  );
  t.is(await storedZone(), 'Asia/Kolkata');
});

test('scheduling zone inputs take the IANA spelling too (slots query, attendee)', (t) => {
  t.is(
    slotsQuery.parse({ eventTypeId: '1', start: '2026-05-01', end: '2026-05-02', timeZone: 'europe/paris' })
      .timeZone,
    'Europe/Paris',
  );
  t.is(attendee.parse({ name: 'A', email: 'a@example.test', timeZone: 'asia/tokyo' }).timeZone, 'Asia/Tokyo');
  t.is(attendee.parse({ name: 'A', email: 'a@example.test', timeZone: 'US/Eastern' }).timeZone, 'US/Eastern');
  t.false(attendee.safeParse({ name: 'A', email: 'a@example.test', timeZone: 'Not/AZone' }).success);
});

test('roles and permissions: exact permission message, duplicate names, system roles', async (t) => {
  const base = `/v2/organizations/${scene.orgId}/roles`;
  const message =
    "Permission 'eventType.invite' must be a valid permission string in format 'resource.action' (e.g., 'eventType.read', 'booking.create')";
  const bad = await call('POST', base, {
    token: owner(),
    body: { name: 'Bad', permissions: ['team.read', 'eventType.invite'] },
  });
  t.is(bad.status, 400);
  t.is(bad.body.error.message, message);
  for (const [method, path, body] of [
    ['POST', `${base}/${roleId}/permissions`, { permissions: ['eventType.invite'] }],
    ['PUT', `${base}/${roleId}/permissions`, { permissions: ['eventType.invite'] }],
    ['DELETE', `${base}/${roleId}/permissions`, { permissions: ['eventType.invite'] }],
    ['DELETE', `${base}/${roleId}/permissions/eventType.invite`, undefined],
  ] as const) {
    const response = await call(method, path, { token: owner(), body });
    t.is(response.status, 400, `${method} ${path}`);
    t.is(response.body.error.message, message);
  }
  badRequest(
    t,
    await call('POST', `${base}/${roleId}/permissions`, { token: owner(), body: { permissions: [] } }),
    'body.permissions',
  );
  badRequest(
    t,
    await call('POST', base, { token: owner(), body: { name: 'C', color: 'red' } }),
    'body.color',
  );
  badRequest(t, await call('POST', base, { token: owner(), body: { name: '' } }), 'body.name');
  badRequest(
    t,
    await call('POST', base, { token: owner(), body: { name: 'C', type: 'SYSTEM' } }),
    'body.type',
  );
  t.is((await call('POST', base, { token: owner(), body: { name: 'Scheduler' } })).status, 201);
  const duplicate = await call('POST', base, { token: owner(), body: { name: 'SCHEDULER' } });
  t.is(duplicate.status, 400);
  badRequest(t, duplicate, 'body.name');
  for (const system of ['owner_role', 'admin_role', 'member_role']) {
    t.is((await call('PATCH', `${base}/${system}`, { token: owner(), body: { name: 'Mine' } })).status, 403);
    t.is((await call('DELETE', `${base}/${system}`, { token: owner() })).status, 403);
    t.is(
      (
        await call('POST', `${base}/${system}/permissions`, {
          token: owner(),
          body: { permissions: ['team.read'] },
        })
      ).status,
      403,
    );
    t.is((await call('GET', `${base}/${system}`, { token: owner() })).status, 200);
  }
});

test('teams: names, slugs, duplicates', async (t) => {
  badRequest(t, await call('POST', '/v2/teams', { token: owner(), body: { name: '' } }), 'body.name');
  badRequest(
    t,
    await call('POST', '/v2/teams', { token: owner(), body: { name: 'A', slug: 'no spaces' } }),
    'body.slug',
  );
  badRequest(
    t,
    await call('POST', '/v2/teams', { token: owner(), body: { name: 'A', organizationId: 1 } }),
    'body.organizationId',
  );
  badRequest(t, await call('POST', '/v2/teams', { token: owner(), body: { name: '!!!' } }), 'body.slug');
  t.is((await call('POST', '/v2/teams', { token: owner(), body: { name: 'Validation Team' } })).status, 201);
  t.is(
    (await call('POST', '/v2/teams', { token: owner(), body: { name: 'Other', slug: 'VALIDATION-team' } }))
      .status,
    409,
  );
});

test('admin bodies', async (t) => {
  const token = admin.apiKey;
  badRequest(t, await call('POST', '/v2/admin/users', { token, body: { email: 'x' } }), 'body.email');
  badRequest(
    t,
    await call('POST', '/v2/admin/users', { token, body: { email: 'ok@example.test', password: 'short' } }),
    'body.password',
  );
  badRequest(
    t,
    await call('POST', '/v2/admin/users', {
      token,
      body: { email: 'ok@example.test', isServiceAdmin: true },
    }),
    'body.isServiceAdmin',
  );
  badRequest(
    t,
    await call('POST', '/v2/admin/organizations', { token, body: { name: 'X', slug: 'x' } }),
    'body.ownerUserId',
  );
  badRequest(
    t,
    await call('PATCH', `/v2/admin/organizations/${scene.orgId}`, { token, body: { pbacEnabled: 'yes' } }),
    'body.pbacEnabled',
  );
  badRequest(
    t,
    await call('PATCH', `/v2/admin/organizations/${scene.orgId}`, { token, body: {} }),
    'body.pbacEnabled',
  );
});

test('garbage in never makes a 500 (every route of this part, every kind of bad input)', async (t) => {
  const routes = [
    ...meRoutes,
    ...apiKeyRoutes,
    ...teamRoutes,
    ...membershipRoutes,
    ...roleRoutes,
    ...rolePermissionRoutes,
    ...adminRoutes,
  ];
  // A scene of its own: nothing here may disturb the other tests.
  const fuzz = await buildScene(system.stores.db.knex, { owner: { org: 'OWNER', team: 'OWNER' } });
  const ids = ['x', '0', '99999999999999999999', '-1', "1' or '1'='1", '%00', '999999'];
  const bodies: unknown[] = [
    undefined,
    null,
    [],
    'text',
    42,
    {},
    { a: 1 },
    { name: null, role: {}, userId: -1, permissions: [null] },
  ];
  const cases = routes.flatMap((route) =>
    ids.flatMap((id) =>
      (route.method === 'GET' ? [undefined] : bodies).map((body) => ({
        method: route.method,
        path: `/v2${route.path.replace(/:(\w+)/g, (_m, name: string) => (name === 'orgId' ? String(fuzz.orgId) : encodeURIComponent(id)))}`,
        body,
      })),
    ),
  );
  const statuses = await pool(cases, 8, async (c) => {
    const response = await call(c.method, c.path, {
      token: c.path.includes('/admin/') ? admin.apiKey : fuzz.users.owner.apiKey,
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
      headers: { 'content-type': 'application/json' },
    });
    return `${response.status}`;
  });
  const failures = cases
    .filter((_c, i) => Number(statuses[i]) >= 500)
    .map((c, i) => `${c.method} ${c.path} ${JSON.stringify(c.body)} -> ${statuses[i]}`);
  t.deepEqual(failures, []);
  t.true(
    statuses.every((s) => ['200', '201', '400', '403', '404', '409'].includes(s)),
    [...new Set(statuses)].join(','),
  );
});
