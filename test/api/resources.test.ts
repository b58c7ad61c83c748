import test from 'ava';
import { createTestAccessToken } from '../support/tokens.ts';
import { findUserByEmail } from '@sched/db/queries/users';
import { waitForMail } from '../support/mail.ts';
import { setUpWorld, buildScene } from '../support/world.ts';
import type { Json } from '../support/http.ts';
import { insertCustomRole, insertUser, type TestUser } from '../support/factories.ts';

/** What the endpoints do when allowed: shapes of me, API keys, teams, memberships, roles, admin. */

const { system, smtp, call, knex } = setUpWorld(test);
let admin: TestUser;

test.before(async () => {
  admin = await insertUser(knex(), { serviceAdmin: true });
});

/** The first message to `to` (any case) whose raw text `predicate` accepts, waiting up to 10 s. */
const mailTo = (to: string, predicate: (raw: string) => boolean = () => true) =>
  waitForMail(smtp, to, (mail) => predicate(mail.raw));

test('GET and PATCH /v2/me', async (t) => {
  const created = await call('POST', '/v2/admin/users', {
    token: admin.apiKey,
    body: { email: 'me@example.test', name: 'Me', username: 'me-user' },
  });
  const key: string = created.body.data.apiKey;
  const me = await call('GET', '/v2/me', { token: key });
  t.is(me.status, 200);
  t.deepEqual(Object.keys(me.body.data).sort(), [
    'bookingLimits',
    'defaultScheduleId',
    'email',
    'emailVerified',
    'id',
    'locale',
    'name',
    'organizationId',
    'timeFormat',
    'timeZone',
    'username',
    'weekStart',
  ]);
  t.is(me.body.data.organizationId, null);
  t.deepEqual(me.body.data.bookingLimits, { perDay: null, perWeek: null, perMonth: null, perYear: null });
  const patched = await call('PATCH', '/v2/me', {
    token: key,
    body: {
      name: 'Me Too',
      timeZone: 'America/New_York',
      weekStart: 'Sunday',
      locale: 'pt-BR',
      timeFormat: 24,
    },
  });
  t.is(patched.status, 200);
  t.like(patched.body.data, {
    name: 'Me Too',
    timeZone: 'America/New_York',
    weekStart: 'Sunday',
    locale: 'pt-BR',
    timeFormat: 24,
  });
  // An organization membership shows as organizationId.
  const org = await call('POST', '/v2/admin/organizations', {
    token: admin.apiKey,
    body: { name: 'Acme', slug: 'acme-me', ownerUserId: me.body.data.id },
  });
  t.is(org.status, 201);
  t.deepEqual(org.body.data, { id: org.body.data.id, name: 'Acme', slug: 'acme-me', pbacEnabled: false });
  t.is((await call('GET', '/v2/me', { token: key })).body.data.organizationId, org.body.data.id);
});

test('API keys: create (shown once), list (hints), revoke; another user’s key is 404', async (t) => {
  const user = await insertUser(knex());
  const other = await insertUser(knex());
  const created = await call('POST', '/v2/api-keys', { token: user.apiKey });
  t.is(created.status, 201);
  t.regex(created.body.data.apiKey, /^svc_/);
  t.is(created.body.data.hint, created.body.data.apiKey.slice(-4));
  const list = await call('GET', '/v2/api-keys', { token: user.apiKey });
  t.is(list.body.data.length, 2);
  t.deepEqual(Object.keys(list.body.data[0]).sort(), ['createdAt', 'hint', 'id', 'lastUsedAt']);
  t.false(JSON.stringify(list.body).includes(created.body.data.apiKey));
  t.is((await call('DELETE', `/v2/api-keys/${created.body.data.id}`, { token: other.apiKey })).status, 404);
  const revoked = await call('DELETE', `/v2/api-keys/${created.body.data.id}`, { token: user.apiKey });
  t.is(revoked.status, 200);
  t.is(revoked.body.data.id, created.body.data.id);
  t.is((await call('DELETE', `/v2/api-keys/${created.body.data.id}`, { token: user.apiKey })).status, 404);
  t.is((await call('GET', '/v2/api-keys', { token: user.apiKey })).body.data.length, 1);
});

test('teams: POST /v2/teams makes the caller OWNER; organization teams; lists', async (t) => {
  const user = await insertUser(knex());
  const created = await call('POST', '/v2/teams', {
    token: user.apiKey,
    body: { name: 'Ünïcode Sales Team' },
  });
  t.is(created.status, 201);
  t.like(created.body.data, { name: 'Ünïcode Sales Team', slug: 'unicode-sales-team', organizationId: null });
  const teamId = created.body.data.id;
  const members = await call('GET', `/v2/teams/${teamId}/memberships`, { token: user.apiKey });
  t.is(members.body.data.length, 1);
  t.like(members.body.data[0], {
    userId: user.id,
    teamId,
    role: 'OWNER',
    accepted: true,
    customRoleId: null,
  });
  t.deepEqual((await call('GET', '/v2/teams', { token: user.apiKey })).body.data, [created.body.data]);
  t.deepEqual(
    (await call('GET', `/v2/teams/${teamId}`, { token: user.apiKey })).body.data,
    created.body.data,
  );

  const scene = await buildScene(knex(), { admin: { org: 'ADMIN' }, member: { org: 'MEMBER' } });
  const orgTeam = await call('POST', `/v2/organizations/${scene.orgId}/teams`, {
    token: scene.users.admin.apiKey,
    body: { name: 'Support', slug: 'support' },
  });
  t.is(orgTeam.status, 201);
  t.is(orgTeam.body.data.organizationId, scene.orgId);
  t.is(
    (
      await call('POST', `/v2/organizations/${scene.orgId}/teams`, {
        token: scene.users.member.apiKey,
        body: { name: 'No' },
      })
    ).status,
    403,
  );
  const listed = await call('GET', `/v2/organizations/${scene.orgId}/teams`, {
    token: scene.users.member.apiKey,
  });
  t.deepEqual(
    listed.body.data.map((team: { id: number }) => team.id),
    [scene.teamId, orgTeam.body.data.id],
  );
  // An org member without a team membership does not see the team itself; an org admin does.
  t.is(
    (
      await call('GET', `/v2/organizations/${scene.orgId}/teams/${orgTeam.body.data.id}`, {
        token: scene.users.member.apiKey,
      })
    ).status,
    403,
  );
  t.is(
    (
      await call('GET', `/v2/organizations/${scene.orgId}/teams/${orgTeam.body.data.id}`, {
        token: scene.users.admin.apiKey,
      })
    ).status,
    200,
  );
  // The same slug is fine in another organization or outside one.
  t.is(
    (await call('POST', '/v2/teams', { token: user.apiKey, body: { name: 'Support', slug: 'support' } }))
      .status,
    201,
  );
});

test('memberships: invite, accept, get, list, patch, delete in each family; role output uppercase', async (t) => {
  const scene = await buildScene(knex(), { owner: { org: 'OWNER', team: 'OWNER' } });
  const a = await insertUser(knex());
  const orgBase = `/v2/organizations/${scene.orgId}/memberships`;
  const invited = await call('POST', orgBase, {
    token: scene.users.owner.apiKey,
    body: { email: a.email, role: 'Admin' },
  });
  t.is(invited.status, 201);
  // Until accepted: only what the inviter gave.
  t.deepEqual(invited.body.data, {
    id: invited.body.data.id,
    userId: null,
    teamId: scene.orgId,
    accepted: false,
    role: 'ADMIN',
    user: { email: a.email, avatarUrl: null, username: null, name: null, bio: null, metadata: null },
    disableImpersonation: false,
    customRoleId: null,
  });
  const accepted = await call('POST', `/v2/me/invitations/${invited.body.data.id}/accept`, {
    token: a.apiKey,
  });
  t.is(accepted.status, 200);
  const expected = {
    id: invited.body.data.id,
    userId: a.id,
    teamId: scene.orgId,
    accepted: true,
    role: 'ADMIN',
    user: {
      email: a.email,
      avatarUrl: null,
      username: a.user.username,
      name: a.user.name,
      bio: null,
      metadata: {},
    },
    disableImpersonation: false,
    customRoleId: null,
  };
  t.deepEqual(accepted.body.data, expected);
  t.deepEqual(
    (await call('GET', `${orgBase}/${expected.id}`, { token: scene.users.owner.apiKey })).body.data,
    expected,
  );
  for (const base of [
    `/v2/organizations/${scene.orgId}/teams/${scene.teamId}/memberships`,
    `/v2/teams/${scene.teamId}/memberships`,
  ]) {
    // A team of the organization adds the organization's accepted members directly.
    const added = await call('POST', base, {
      token: scene.users.owner.apiKey,
      body: { userId: a.id, role: 'member' },
    });
    t.is(added.status, 201, base);
    t.like(added.body.data, {
      teamId: scene.teamId,
      role: 'MEMBER',
      accepted: true,
      user: { email: a.email },
    });
    const item = `${base}/${added.body.data.id}`;
    t.deepEqual((await call('GET', item, { token: scene.users.owner.apiKey })).body.data, added.body.data);
    const patched = await call('PATCH', item, {
      token: scene.users.owner.apiKey,
      body: { role: 'admin' },
    });
    t.like(patched.body.data, { accepted: true, role: 'ADMIN' });
    t.deepEqual((await call('GET', item, { token: scene.users.owner.apiKey })).body.data, patched.body.data);
    const removed = await call('DELETE', item, { token: scene.users.owner.apiKey });
    t.deepEqual(removed.body.data, patched.body.data);
    t.is((await call('GET', item, { token: scene.users.owner.apiKey })).status, 404);
  }
});

test('invite by email: pending membership, invitation e-mail; no account is made for a new address', async (t) => {
  const scene = await buildScene(knex(), { owner: { org: 'OWNER', team: 'OWNER' } });
  const invited = await call('POST', `/v2/organizations/${scene.orgId}/memberships`, {
    token: scene.users.owner.apiKey,
    body: { email: 'Newcomer@Example.test', role: 'admin' },
  });
  t.is(invited.status, 201);
  t.like(invited.body.data, {
    userId: null,
    accepted: false,
    role: 'ADMIN',
    user: { email: 'Newcomer@Example.test' },
  });
  const mail = await mailTo('newcomer@example.test');
  t.regex(mail.raw, /Subject: You are invited to join the organization Org /);
  t.regex(mail.raw, /as admin/);
  t.regex(mail.raw, /text\/html/);
  t.regex(mail.raw, /\/auth\/settings\/invitations/);
  t.is(await findUserByEmail(knex(), 'newcomer@example.test'), null);
  // Invited to the organization, the address may be invited to its team too (pending as well).
  const teamInvite = await call('POST', `/v2/teams/${scene.teamId}/memberships`, {
    token: scene.users.owner.apiKey,
    body: { email: 'newcomer@example.test', role: 'member' },
  });
  t.is(teamInvite.status, 201);
  // It shows the address as this inviter typed it, not as the organization's invitation has it.
  t.like(teamInvite.body.data, { userId: null, accepted: false, user: { email: 'newcomer@example.test' } });
  await mailTo('newcomer@example.test', (raw) => /join the team/.test(raw));
  const twice = await call('POST', `/v2/organizations/${scene.orgId}/memberships`, {
    token: scene.users.owner.apiKey,
    body: { email: 'newcomer@example.test', role: 'member' },
  });
  t.is(twice.status, 409);
  // An OAuth token with the write scope may invite too.
  const oauth = await createTestAccessToken(system.stores, {
    userId: scene.users.owner.id,
    scopes: ['ORG_MEMBERSHIP_WRITE'],
  });
  const viaToken = await call('POST', `/v2/organizations/${scene.orgId}/memberships`, {
    token: oauth,
    body: { email: 'second@example.test', role: 'MEMBER' },
  });
  t.is(viaToken.status, 201);
  await mailTo('second@example.test');
});

test('roles: system roles listed first and unchangeable; custom role CRUD; permissions add, list, replace, remove', async (t) => {
  const scene = await buildScene(knex(), { owner: { org: 'OWNER' }, member: { org: 'MEMBER' } });
  const base = `/v2/organizations/${scene.orgId}/roles`;
  const token = scene.users.owner.apiKey;
  const listed = await call('GET', base, { token: scene.users.member.apiKey });
  t.deepEqual(
    listed.body.data
      .slice(0, 3)
      .map((r: { id: string; type: string; organizationId: null }) => [r.id, r.type, r.organizationId]),
    [
      ['owner_role', 'SYSTEM', null],
      ['admin_role', 'SYSTEM', null],
      ['member_role', 'SYSTEM', null],
    ],
  );
  t.deepEqual(listed.body.data[0].permissions, ['*.*']);
  const created = await call('POST', base, {
    token,
    body: {
      name: 'Scheduler',
      color: '#123abc',
      description: 'Books things',
      permissions: ['booking.*', 'eventType.read', 'booking.*'],
    },
  });
  t.is(created.status, 201);
  t.like(created.body.data, {
    name: 'Scheduler',
    color: '#123abc',
    description: 'Books things',
    organizationId: scene.orgId,
    type: 'CUSTOM',
    permissions: ['booking.*', 'eventType.read'],
  });
  t.truthy(Date.parse(created.body.data.createdAt));
  const roleId: string = created.body.data.id;
  t.deepEqual((await call('GET', `${base}/${roleId}`, { token })).body.data, created.body.data);
  const renamed = await call('PATCH', `${base}/${roleId}`, { token, body: { name: 'Booker', color: null } });
  t.like(renamed.body.data, { name: 'Booker', color: null, description: 'Books things' });
  const perms = `${base}/${roleId}/permissions`;
  t.deepEqual(
    (await call('POST', perms, { token, body: { permissions: ['team.listMembers', 'eventType.read'] } })).body
      .data,
    ['booking.*', 'eventType.read', 'team.listMembers'],
  );
  t.deepEqual((await call('GET', perms, { token })).body.data, [
    'booking.*',
    'eventType.read',
    'team.listMembers',
  ]);
  t.deepEqual(
    (await call('PUT', perms, { token, body: { permissions: ['*.*', 'role.read', 'schedule.*'] } })).body
      .data,
    ['*.*', 'role.read', 'schedule.*'],
  );
  t.deepEqual(
    (await call('DELETE', perms, { token, body: { permissions: ['role.read', 'schedule.*', 'team.read'] } }))
      .body.data,
    ['*.*'],
  );
  t.deepEqual((await call('DELETE', `${perms}/${encodeURIComponent('*.*')}`, { token })).body.data, []);
  // A membership holding the role loses it when the role is deleted.
  const withRole = await call(
    'PATCH',
    `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.member}`,
    {
      token,
      body: { customRoleId: roleId },
    },
  );
  t.is(withRole.body.data.customRoleId, roleId);
  const deleted = await call('DELETE', `${base}/${roleId}`, { token });
  t.is(deleted.status, 200);
  t.is(deleted.body.data.id, roleId);
  t.is((await call('GET', `${base}/${roleId}`, { token })).status, 404);
  const after = await call(
    'GET',
    `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.member}`,
    { token },
  );
  t.is(after.body.data.customRoleId, null);
  // Members read roles; changing them needs an admin (or role.* with PBAC).
  t.is((await call('POST', base, { token: scene.users.member.apiKey, body: { name: 'Nope' } })).status, 403);
  const own = await insertCustomRole(knex(), scene.orgId, []);
  t.is((await call('GET', `${base}/${own}/permissions`, { token: scene.users.member.apiKey })).status, 200);
});

test('admin organizations: create with owner, PATCH pbacEnabled; slug taken is 409', async (t) => {
  const owner = await insertUser(knex());
  const created = await call('POST', '/v2/admin/organizations', {
    token: admin.apiKey,
    body: { name: 'Globex', slug: 'globex', ownerUserId: owner.id, pbacEnabled: true },
  });
  t.is(created.status, 201);
  t.true(created.body.data.pbacEnabled);
  const members = await call('GET', `/v2/organizations/${created.body.data.id}/memberships`, {
    token: owner.apiKey,
  });
  t.like(members.body.data[0], { userId: owner.id, role: 'OWNER', accepted: true });
  const off = await call('PATCH', `/v2/admin/organizations/${created.body.data.id}`, {
    token: admin.apiKey,
    body: { pbacEnabled: false },
  });
  t.false(off.body.data.pbacEnabled);
  t.is(
    (
      await call('POST', '/v2/admin/organizations', {
        token: admin.apiKey,
        body: { name: 'G', slug: 'GLOBEX', ownerUserId: owner.id },
      })
    ).status,
    409,
  );
});

/** A named schema of the document: `{$ref: '#/components/schemas/X'}` -> X. */
const named = (document: Json, schema: { $ref: string }) =>
  document.components.schemas[schema.$ref.replace('#/components/schemas/', '')];

test('OpenAPI 3.1 document and docs page show every route with its scope, role and permission', async (t) => {
  const response = await call('GET', '/v2/openapi.json');
  t.is(response.status, 200);
  const document = response.body;
  t.is(document.openapi, '3.1.0');
  const remove = document.paths['/teams/{teamId}/memberships/{membershipId}'].delete;
  t.deepEqual(remove['x-scope'], ['TEAM_MEMBERSHIP_WRITE']);
  // Removing someone is the team admin's (api-v2.md's row); a member may remove only their own.
  t.deepEqual(remove['x-access'], {
    level: 'team',
    minimumRole: 'ADMIN',
    permission: 'team.remove',
    ownMembershipRole: 'MEMBER',
  });
  t.regex(remove.description, /OAuth scope:\*\* TEAM_MEMBERSHIP_WRITE/);
  t.regex(
    remove.description,
    /Minimum role:\*\* team ADMIN \(organization ADMIN or OWNER also passes\); MEMBER on their own membership \(leaving\)/,
  );
  t.regex(remove.description, /PBAC permission:\*\* team\.remove/);
  t.deepEqual(
    remove.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`),
    ['path:teamId', 'path:membershipId'],
  );
  const create = document.paths['/organizations/{orgId}/memberships'].post;
  const createBody = named(document, create.requestBody.content['application/json'].schema);
  t.deepEqual(Object.keys(createBody.properties).sort(), ['accepted', 'email', 'role', 'userId']);
  t.is(createBody.additionalProperties, false);
  t.is(document.paths['/organizations/{orgId}/roles'].get['x-scope'], null);
  t.deepEqual(document.paths['/me'].get.security, [{ bearer: [] }, { oauth2: ['PROFILE_READ'] }]);
  t.truthy(document.components.securitySchemes.oauth2.flows.authorizationCode.scopes.TEAM_MEMBERSHIP_WRITE);
  const list = document.paths['/teams/{teamId}/memberships'].get;
  t.deepEqual(
    list.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name),
    ['skip', 'take'],
  );
  const page = await fetch(`${system.url}/v2/docs`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  const html = await page.text();
  t.regex(html, /\/v2\/teams\/\{teamId\}\/memberships\/\{membershipId\}/);
  t.regex(html, /team\.remove/);
  t.false(/<script/i.test(html));
  t.false(/(src|href)="https?:/i.test(html), 'no external resources');
});
