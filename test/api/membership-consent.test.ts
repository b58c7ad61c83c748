import test from 'ava';
import {
  insertClient,
  insertCustomRole,
  insertMembership,
  insertTeam,
  insertUser,
  type TestUser,
} from '../support/factories.ts';
import { waitForMail } from '../support/mail.ts';
import { createTestAccessToken } from '../support/tokens.ts';
import { buildScene, setUpWorld } from '../support/world.ts';

/**
 * Memberships with consent and without leaks (docs/decisions.md "Memberships with consent").
 * Each attack of the issue that opened this is tried here as an attacker would, through the API.
 */

const world = setUpWorld(test);
const { call } = world;
const knex = () => world.knex();

const MUST_ACCEPT = 'the invited user must accept the invitation';
const NEVER_USED_ID = 9_000_000_000;

/** A standalone team whose OWNER is `owner` (made through the API, as an attacker would). */
async function teamOf(owner: TestUser): Promise<number> {
  const created = await call('POST', '/v2/teams', {
    token: owner.apiKey,
    body: { name: `Team of ${owner.id}` },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body.data.id;
}

/** Two users who share an accepted membership of a standalone team (they may name each other by id). */
async function acquaintances(): Promise<{ inviter: TestUser; invitee: TestUser }> {
  const inviter = await insertUser(knex(), { name: 'Inviter' });
  const invitee = await insertUser(knex(), { name: 'Invitee Name' });
  const shared = await insertTeam(knex(), null);
  await insertMembership(knex(), { userId: inviter.id, teamId: shared, role: 'MEMBER' });
  await insertMembership(knex(), { userId: invitee.id, teamId: shared, role: 'MEMBER' });
  return { inviter, invitee };
}

const withoutVolatile = (body: { timestamp?: string; path?: string }) => ({
  ...body,
  timestamp: 0,
  path: '',
});

test('nobody is forced into a team: accepted:true is refused, and a stranger id is "not found" like an id that does not exist', async (t) => {
  const attacker = await insertUser(knex());
  const victim = await insertUser(knex(), { name: 'Victim' });
  const team = await teamOf(attacker);
  const path = `/v2/teams/${team}/memberships`;

  const forced = await call('POST', path, {
    token: attacker.apiKey,
    body: { userId: victim.id, role: 'MEMBER', accepted: true },
  });
  t.is(forced.status, 403);
  t.is(forced.body.error.message, MUST_ACCEPT);

  const existing = await call('POST', path, {
    token: attacker.apiKey,
    body: { userId: victim.id, role: 'MEMBER' },
  });
  const missing = await call('POST', path, {
    token: attacker.apiKey,
    body: { userId: NEVER_USED_ID, role: 'MEMBER' },
  });
  const admin = await call('POST', path, {
    token: attacker.apiKey,
    body: { userId: world.admin.id, role: 'MEMBER' },
  });
  for (const response of [existing, missing, admin]) {
    t.is(response.status, 404);
    t.deepEqual(withoutVolatile(response.body), withoutVolatile(missing.body));
    t.is(response.body.error.message, 'User not found');
    t.notRegex(JSON.stringify(response.body), /Victim|@/);
  }
  // Nothing was made: the victim has no invitation and no membership.
  t.deepEqual((await call('GET', '/v2/me/invitations', { token: victim.apiKey })).body.data, []);
  t.is((await knex()('memberships').where({ user_id: victim.id, team_id: team }).first()) ?? null, null);
});

test("an organization admin cannot pull in another organization's member", async (t) => {
  const ours = await buildScene(knex(), { admin: { org: 'ADMIN' } });
  const theirs = await buildScene(knex(), { member: { org: 'MEMBER', team: 'MEMBER' } });
  const pulled = await call('POST', `/v2/organizations/${ours.orgId}/memberships`, {
    token: ours.users.admin.apiKey,
    body: { userId: theirs.users.member.id, role: 'MEMBER' },
  });
  t.is(pulled.status, 404);
  t.is(pulled.body.error.message, 'User not found');
  const intoTeam = await call('POST', `/v2/organizations/${ours.orgId}/teams/${ours.teamId}/memberships`, {
    token: ours.users.admin.apiKey,
    body: { userId: theirs.users.member.id, role: 'MEMBER' },
  });
  t.is(intoTeam.status, 404);
  // Their organization's members are not ours to read either.
  t.is(
    (await call('GET', `/v2/organizations/${theirs.orgId}/memberships`, { token: ours.users.admin.apiKey }))
      .status,
    403,
  );
});

test('an invitation by e-mail answers alike whether the address has an account, and shows no profile', async (t) => {
  const inviter = await insertUser(knex());
  const account = await insertUser(knex(), { name: 'Has An Account', username: `acct${Date.now()}` });
  const team = await teamOf(inviter);
  const path = `/v2/teams/${team}/memberships`;
  const toAccount = await call('POST', path, {
    token: inviter.apiKey,
    body: { email: account.email, role: 'MEMBER' },
  });
  const nobody = `nobody-${Date.now()}@example.test`;
  const toNobody = await call('POST', path, {
    token: inviter.apiKey,
    body: { email: nobody, role: 'MEMBER' },
  });
  t.is(toAccount.status, 201);
  t.is(toNobody.status, 201);
  const shape = (data: Record<string, unknown> & { user: Record<string, unknown> }) => ({
    ...data,
    id: 0,
    user: { ...data.user, email: '' },
  });
  t.deepEqual(shape(toAccount.body.data), shape(toNobody.body.data));
  t.deepEqual(toAccount.body.data.user, {
    email: account.email,
    avatarUrl: null,
    username: null,
    name: null,
    bio: null,
    metadata: null,
  });
  t.is(toAccount.body.data.userId, null);
  // The list says no more than the answer did.
  const listed = await call('GET', path, { token: inviter.apiKey });
  t.notRegex(JSON.stringify(listed.body), /Has An Account/);
  // Both addresses get the same e-mail, pointing at the invitations page.
  const [one, other] = await Promise.all([waitForMail(world, account.email), waitForMail(world, nobody)]);
  t.is(one.subject, other.subject);
  t.regex(one.text, /\/auth\/settings\/invitations/);
});

test("an organization team's invitation by e-mail answers alike whether the address has an account invited to the organization", async (t) => {
  // The caller is a team ADMIN but only an organization MEMBER: the organization's list is not theirs.
  const scene = await buildScene(knex(), {
    teamAdmin: { org: 'MEMBER', team: 'ADMIN' },
    pending: { org: 'MEMBER', accepted: false },
  });
  t.is(
    (
      await call('GET', `/v2/organizations/${scene.orgId}/memberships`, {
        token: scene.users.teamAdmin.apiKey,
      })
    ).status,
    403,
  );
  // One address with an account invited to the organization by id, one invited by e-mail with none.
  const nobody = `nobody-${Date.now()}@example.test`;
  await knex()('memberships').insert({
    invited_email: nobody,
    organization_id: scene.orgId,
    role: 'MEMBER',
    accepted: false,
  });
  const path = `/v2/organizations/${scene.orgId}/teams/${scene.teamId}/memberships`;
  const typed = scene.users.pending.email.toUpperCase();
  const toAccount = await call('POST', path, {
    token: scene.users.teamAdmin.apiKey,
    body: { email: typed, role: 'MEMBER' },
  });
  const toNobody = await call('POST', path, {
    token: scene.users.teamAdmin.apiKey,
    body: { email: nobody, role: 'MEMBER' },
  });
  t.is(toAccount.status, 201, JSON.stringify(toAccount.body));
  t.is(toNobody.status, 201, JSON.stringify(toNobody.body));
  const shape = (data: Record<string, unknown> & { user: Record<string, unknown> }) => ({
    ...data,
    id: 0,
    user: { ...data.user, email: '' },
  });
  t.deepEqual(shape(toAccount.body.data), shape(toNobody.body.data));
  // The address typed, never the account found by it.
  t.like(toAccount.body.data, { userId: null, accepted: false, user: { email: typed, username: null } });
  t.like(toNobody.body.data, { userId: null, accepted: false, user: { email: nobody } });
  const listed = await call('GET', path, { token: scene.users.teamAdmin.apiKey });
  t.false(listed.body.data.some((m: { userId: number | null }) => m.userId === scene.users.pending.id));

  // The invitee (verified address) answers: the organization first, then the team.
  const invitee = scene.users.pending;
  const mine = await call('GET', '/v2/me/invitations', { token: invitee.apiKey });
  t.deepEqual(
    mine.body.data.map((i: { id: number }) => i.id),
    [scene.orgMembership.pending, toAccount.body.data.id],
  );
  const early = await call('POST', `/v2/me/invitations/${toAccount.body.data.id}/accept`, {
    token: invitee.apiKey,
  });
  t.is(early.status, 409);
  t.is(
    (
      await call('POST', `/v2/me/invitations/${scene.orgMembership.pending}/accept`, {
        token: invitee.apiKey,
      })
    ).status,
    200,
  );
  const joined = await call('POST', `/v2/me/invitations/${toAccount.body.data.id}/accept`, {
    token: invitee.apiKey,
  });
  t.is(joined.status, 200);
  t.like(joined.body.data, { userId: invitee.id, accepted: true, teamId: scene.teamId });
});

test('an organization team: an id whose only membership is a pending invitation to the organization is "not found" like a stranger\'s', async (t) => {
  const scene = await buildScene(knex(), {
    teamAdmin: { org: 'MEMBER', team: 'ADMIN' },
    pending: { org: 'MEMBER', accepted: false },
  });
  const path = `/v2/organizations/${scene.orgId}/teams/${scene.teamId}/memberships`;
  const stranger = await insertUser(knex());
  const responses = [];
  for (const userId of [scene.users.pending.id, stranger.id, NEVER_USED_ID]) {
    responses.push(
      await call('POST', path, { token: scene.users.teamAdmin.apiKey, body: { userId, role: 'MEMBER' } }),
    );
  }
  for (const response of responses) {
    t.is(response.status, 404, JSON.stringify(response.body));
    t.is(response.body.error.message, 'User not found');
    t.deepEqual(withoutVolatile(response.body), withoutVolatile(responses[2]!.body));
  }
  // Nothing was made: only the organization's invitation waits.
  t.is(
    (await knex()('memberships').where({ user_id: scene.users.pending.id, team_id: scene.teamId }).first()) ??
      null,
    null,
  );
  const mine = await call('GET', '/v2/me/invitations', { token: scene.users.pending.apiKey });
  t.deepEqual(
    mine.body.data.map((i: { id: number }) => i.id),
    [scene.orgMembership.pending],
  );
  // By e-mail the pending invitee still gets a pending team invitation.
  const byEmail = await call('POST', path, {
    token: scene.users.teamAdmin.apiKey,
    body: { email: scene.users.pending.email, role: 'MEMBER' },
  });
  t.is(byEmail.status, 201);
  t.like(byEmail.body.data, { userId: null, accepted: false });
  // Someone the caller shares an accepted team with may be named by id: a pending team membership.
  const shared = await insertTeam(knex(), null);
  await insertMembership(knex(), { userId: scene.users.teamAdmin.id, teamId: shared, role: 'MEMBER' });
  await insertMembership(knex(), { userId: scene.users.pending.id, teamId: shared, role: 'MEMBER' });
  const known = await call('POST', path, {
    token: scene.users.teamAdmin.apiKey,
    body: { userId: scene.users.pending.id, role: 'MEMBER' },
  });
  t.is(known.status, 201);
  t.like(known.body.data, { userId: scene.users.pending.id, accepted: false });
});

test('the invitation round trip by e-mail: the e-mail arrives, only the invitee accepts, then the inviter sees the profile', async (t) => {
  const inviter = await insertUser(knex(), { name: 'Org Inviter' });
  const invitee = await insertUser(knex(), { name: 'Invited Person' });
  const scene = await buildScene(knex(), { owner: { org: 'OWNER' } });
  const orgPath = `/v2/organizations/${scene.orgId}/memberships`;
  const invited = await call('POST', orgPath, {
    token: scene.users.owner.apiKey,
    body: { email: invitee.email.toUpperCase(), role: 'admin' },
  });
  t.is(invited.status, 201);
  t.false(invited.body.data.accepted);
  const id = invited.body.data.id;
  const mail = await waitForMail(world, invitee.email, (m) => /join the organization/.test(m.subject));
  t.regex(mail.text, /as admin/);

  // The inviter cannot accept on the invitee's behalf.
  const byInviter = await call('PATCH', `${orgPath}/${id}`, {
    token: scene.users.owner.apiKey,
    body: { accepted: true },
  });
  t.is(byInviter.status, 403);
  t.is(byInviter.body.error.message, MUST_ACCEPT);
  const notTheirs = await call('POST', `/v2/me/invitations/${id}/accept`, { token: inviter.apiKey });
  t.is(notTheirs.status, 404);

  // The invitee sees it (their address is verified) with the organization's name and the role.
  const mine = await call('GET', '/v2/me/invitations', { token: invitee.apiKey });
  t.is(mine.status, 200);
  t.like(mine.body.data[0], {
    id,
    kind: 'organization',
    organizationId: scene.orgId,
    teamId: null,
    role: 'ADMIN',
  });
  t.regex(mine.body.data[0].name, /Org/);

  const accepted = await call('POST', `/v2/me/invitations/${id}/accept`, { token: invitee.apiKey });
  t.is(accepted.status, 200);
  t.like(accepted.body.data, { id, userId: invitee.id, accepted: true, user: { name: 'Invited Person' } });
  const seen = await call('GET', `${orgPath}/${id}`, { token: scene.users.owner.apiKey });
  t.like(seen.body.data, { accepted: true, user: { email: invitee.email, name: 'Invited Person' } });
  t.deepEqual((await call('GET', '/v2/me/invitations', { token: invitee.apiKey })).body.data, []);
  // Answered once: accepting or declining again is "not found".
  t.is((await call('POST', `/v2/me/invitations/${id}/accept`, { token: invitee.apiKey })).status, 404);
  t.is((await call('POST', `/v2/me/invitations/${id}/decline`, { token: invitee.apiKey })).status, 404);
});

test('by id: only the username until accepted; declining deletes the membership', async (t) => {
  const { inviter, invitee } = await acquaintances();
  const team = await teamOf(inviter);
  const path = `/v2/teams/${team}/memberships`;
  const invited = await call('POST', path, {
    token: inviter.apiKey,
    body: { userId: invitee.id, role: 'MEMBER' },
  });
  t.is(invited.status, 201);
  t.deepEqual(invited.body.data.user, {
    email: null,
    avatarUrl: null,
    username: invitee.user.username,
    name: null,
    bio: null,
    metadata: null,
  });
  t.is(invited.body.data.userId, invitee.id);
  await waitForMail(world, invitee.email, (m) => /join the team/.test(m.subject));
  const declined = await call('POST', `/v2/me/invitations/${invited.body.data.id}/decline`, {
    token: invitee.apiKey,
  });
  t.is(declined.status, 204);
  t.is((await call('GET', `${path}/${invited.body.data.id}`, { token: inviter.apiKey })).status, 404);

  const again = await call('POST', path, {
    token: inviter.apiKey,
    body: { userId: invitee.id, role: 'MEMBER' },
  });
  t.is(again.status, 201);
  const accepted = await call('POST', `/v2/me/invitations/${again.body.data.id}/accept`, {
    token: invitee.apiKey,
  });
  t.is(accepted.status, 200);
  const seen = await call('GET', `${path}/${again.body.data.id}`, { token: inviter.apiKey });
  t.like(seen.body.data, { accepted: true, user: { email: invitee.email, name: 'Invitee Name' } });
});

test('an invitation to an address reaches only an account whose address is verified', async (t) => {
  const inviter = await insertUser(knex());
  const unverified = await insertUser(knex());
  await knex()('users').where({ id: unverified.id }).update({ email_verified_at: null });
  const team = await teamOf(inviter);
  const invited = await call('POST', `/v2/teams/${team}/memberships`, {
    token: inviter.apiKey,
    body: { email: unverified.email, role: 'MEMBER' },
  });
  t.is(invited.status, 201);
  t.deepEqual((await call('GET', '/v2/me/invitations', { token: unverified.apiKey })).body.data, []);
  const accept = await call('POST', `/v2/me/invitations/${invited.body.data.id}/accept`, {
    token: unverified.apiKey,
  });
  t.is(accept.status, 404);
  await knex()('users').where({ id: unverified.id }).update({ email_verified_at: new Date() });
  const listed = await call('GET', '/v2/me/invitations', { token: unverified.apiKey });
  t.is(listed.body.data.length, 1);
  t.is(
    (await call('POST', `/v2/me/invitations/${invited.body.data.id}/accept`, { token: unverified.apiKey }))
      .status,
    200,
  );
});

test("an invitation to an address never reaches a managed user with that address, only a regular account's", async (t) => {
  const inviter = await insertUser(knex());
  const { client } = await insertClient(knex(), { ownerUserId: inviter.id });
  const address = `managed-invitee-${inviter.id}@example.test`;
  // The client sets a managed user's address, which counts as verified from the start.
  const managed = await insertUser(knex(), { email: address, managedByClientId: client.id });
  t.not(managed.user.emailVerifiedAt, null);
  const managedKey = managed.apiKey;
  const team = await teamOf(inviter);
  const invited = await call('POST', `/v2/teams/${team}/memberships`, {
    token: inviter.apiKey,
    body: { email: address, role: 'MEMBER' },
  });
  t.is(invited.status, 201, JSON.stringify(invited.body));
  const id = invited.body.data.id;
  const listed = await call('GET', '/v2/me/invitations', { token: managedKey });
  t.is(listed.status, 200, JSON.stringify(listed.body));
  t.deepEqual(listed.body.data, []);
  for (const answer of ['accept', 'decline']) {
    const answered = await call('POST', `/v2/me/invitations/${id}/${answer}`, { token: managedKey });
    t.is(answered.status, 404, `${answer}: ${JSON.stringify(answered.body)}`);
    t.is(answered.body.error.message, 'Invitation not found');
  }
  t.deepEqual(await knex()('memberships').where({ id }).first('user_id', 'invited_email', 'accepted'), {
    user_id: null,
    invited_email: address,
    accepted: false,
  });
  // Managed users have an e-mail namespace of their own: a regular account may hold the address too.
  const regular = await insertUser(knex(), { email: address });
  t.is((await call('GET', '/v2/me/invitations', { token: regular.apiKey })).body.data.length, 1);
  const accepted = await call('POST', `/v2/me/invitations/${id}/accept`, { token: regular.apiKey });
  t.is(accepted.status, 200, JSON.stringify(accepted.body));
  t.is(accepted.body.data.userId, regular.id);
});

test('invitations are answered by the user, not by a third-party app', async (t) => {
  const user = await insertUser(knex());
  const token = await createTestAccessToken(world.system.stores, {
    userId: user.id,
    scopes: ['PROFILE_READ', 'TEAM_MEMBERSHIP_WRITE', 'ORG_MEMBERSHIP_WRITE'],
  });
  const listed = await call('GET', '/v2/me/invitations', { token });
  t.is(listed.status, 403);
  t.is(
    listed.body.error.message,
    'insufficient_scope: this endpoint is not available for third-party OAuth tokens',
  );
});

test('a member leaves; an owner cannot (403); the pending invitee is no host', async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER', team: 'OWNER' },
    member: { org: 'MEMBER', team: 'MEMBER' },
    other: { org: 'MEMBER', team: 'MEMBER' },
  });
  const teamPath = `/v2/teams/${scene.teamId}/memberships`;
  const orgPath = `/v2/organizations/${scene.orgId}/memberships`;
  // Someone else's membership still needs ADMIN (or the remove permission).
  const removeOther = await call('DELETE', `${teamPath}/${scene.teamMembership.other}`, {
    token: scene.users.member.apiKey,
  });
  t.is(removeOther.status, 403);
  const leftTeam = await call('DELETE', `${teamPath}/${scene.teamMembership.member}`, {
    token: scene.users.member.apiKey,
  });
  t.is(leftTeam.status, 200);
  const leftOrg = await call('DELETE', `${orgPath}/${scene.orgMembership.member}`, {
    token: scene.users.member.apiKey,
  });
  t.is(leftOrg.status, 200);
  for (const [path, id] of [
    [teamPath, scene.teamMembership.owner],
    [orgPath, scene.orgMembership.owner],
  ] as const) {
    const ownerLeaves = await call('DELETE', `${path}/${id}`, { token: scene.users.owner.apiKey });
    t.is(ownerLeaves.status, 403);
  }
  const standalone = await teamOf(scene.users.owner);
  const ownerOfStandalone = await call('GET', `/v2/teams/${standalone}/memberships`, {
    token: scene.users.owner.apiKey,
  });
  const own = ownerOfStandalone.body.data[0].id;
  t.is(
    (await call('DELETE', `/v2/teams/${standalone}/memberships/${own}`, { token: scene.users.owner.apiKey }))
      .status,
    403,
  );

  // A pending invitee cannot be made a host of the team's event types.
  const invited = await call('POST', `/v2/teams/${standalone}/memberships`, {
    token: scene.users.owner.apiKey,
    body: { userId: scene.users.other.id, role: 'MEMBER' },
  });
  t.is(invited.status, 201);
  const eventType = await call('POST', `/v2/teams/${standalone}/event-types`, {
    token: scene.users.owner.apiKey,
    body: {
      title: 'Sync',
      slug: `sync-${Date.now()}`,
      lengthInMinutes: 30,
      hostUserIds: [scene.users.other.id],
    },
  });
  t.is(eventType.status, 400);
});

test("a member who may remove only themselves learns nothing from membership ids: 403 alike for another's and for none", async (t) => {
  const scene = await buildScene(knex(), {
    owner: { org: 'OWNER' },
    member: { org: 'MEMBER' },
    other: { org: 'MEMBER' },
  });
  const orgPath = `/v2/organizations/${scene.orgId}/memberships`;
  const anothers = await call('DELETE', `${orgPath}/${scene.orgMembership.other}`, {
    token: scene.users.member.apiKey,
  });
  const none = await call('DELETE', `${orgPath}/${NEVER_USED_ID}`, { token: scene.users.member.apiKey });
  t.is(anothers.status, 403);
  t.deepEqual(withoutVolatile(none.body), withoutVolatile(anothers.body));
  // Whoever may remove others still tells a missing membership apart (they can list them anyway).
  const asOwner = await call('DELETE', `${orgPath}/${NEVER_USED_ID}`, { token: scene.users.owner.apiKey });
  t.is(asOwner.status, 404);
  t.is(asOwner.body.error.message, 'Membership not found');
});

test('organization memberships are read by ADMIN or with organization.listMembers', async (t) => {
  const scene = await buildScene(
    knex(),
    {
      admin: { org: 'ADMIN' },
      member: { org: 'MEMBER' },
      lister: { org: 'MEMBER', permissions: ['organization.listMembers'] },
    },
    { pbacEnabled: true },
  );
  const path = `/v2/organizations/${scene.orgId}/memberships`;
  t.is((await call('GET', path, { token: scene.users.admin.apiKey })).status, 200);
  t.is((await call('GET', path, { token: scene.users.member.apiKey })).status, 403);
  t.is(
    (await call('GET', `${path}/${scene.orgMembership.admin}`, { token: scene.users.member.apiKey })).status,
    403,
  );
  t.is((await call('GET', path, { token: scene.users.lister.apiKey })).status, 200);
});

test('a custom role is assigned only by someone who holds all its permissions', async (t) => {
  const scene = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      changer: { org: 'MEMBER', permissions: ['organization.changeMemberRole'] },
      accomplice: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const everything = await insertCustomRole(knex(), scene.orgId, ['*.*']);
  const path = `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.accomplice}`;
  const escalated = await call('PATCH', path, {
    token: scene.users.changer.apiKey,
    body: { customRoleId: everything },
  });
  t.is(escalated.status, 403);
  t.is(escalated.body.error.message, 'You cannot grant permissions you do not hold: *.*');
  // What the changer holds, they may hand on.
  const modest = await insertCustomRole(knex(), scene.orgId, ['organization.changeMemberRole']);
  t.is(
    (await call('PATCH', path, { token: scene.users.changer.apiKey, body: { customRoleId: modest } })).status,
    200,
  );
  t.is(
    (await call('PATCH', path, { token: scene.users.owner.apiKey, body: { customRoleId: everything } }))
      .status,
    200,
  );
});

test('changing roles without listing members does not read memberships: an empty PATCH is 400, one that changes nothing needs the read right', async (t) => {
  const scene = await buildScene(
    knex(),
    {
      owner: { org: 'OWNER' },
      changer: { org: 'MEMBER', permissions: ['organization.changeMemberRole'] },
      target: { org: 'MEMBER' },
    },
    { pbacEnabled: true },
  );
  const path = `/v2/organizations/${scene.orgId}/memberships/${scene.orgMembership.target}`;
  const asChanger = { token: scene.users.changer.apiKey };
  t.is((await call('GET', path, asChanger)).status, 403);

  const empty = await call('PATCH', path, { ...asChanger, body: {} });
  t.is(empty.status, 400);
  t.is(empty.body.error.code, 'BadRequest');
  t.deepEqual(
    empty.body.error.details.map((d: { field: string }) => d.field),
    ['body'],
  );
  t.false(JSON.stringify(empty.body).includes(scene.users.target.email));
  // Every value the current one: nothing would change, the answer would only show the membership.
  for (const body of [{ role: 'MEMBER' }, { customRoleId: null }, { accepted: true }]) {
    const same = await call('PATCH', path, { ...asChanger, body });
    t.is(same.status, 403, JSON.stringify(body));
    t.false(JSON.stringify(same.body).includes(scene.users.target.email));
  }
  // Nor with a token that may write memberships but not read them.
  const writeOnly = await createTestAccessToken(world.system.stores, {
    userId: scene.users.owner.id,
    scopes: ['ORG_MEMBERSHIP_WRITE'],
  });
  const unread = await call('PATCH', path, { token: writeOnly, body: { role: 'MEMBER' } });
  t.is(unread.status, 403);
  t.regex(unread.body.error.message, /^insufficient_scope: .*Required: ORG_MEMBERSHIP_READ/);

  // A real change still answers with the membership; whoever may read members may repeat it.
  const modest = await insertCustomRole(knex(), scene.orgId, ['organization.changeMemberRole']);
  const changed = await call('PATCH', path, { ...asChanger, body: { customRoleId: modest } });
  t.is(changed.status, 200);
  t.is(changed.body.data.customRoleId, modest);
  const again = await call('PATCH', path, {
    token: scene.users.owner.apiKey,
    body: { customRoleId: modest },
  });
  t.is(again.status, 200);
  t.is(again.body.data.user.email, scene.users.target.email);
  t.is((await call('PATCH', path, { token: scene.users.owner.apiKey, body: {} })).status, 400);
});

test('service administrators provision accepted organization memberships; nobody else may', async (t) => {
  const scene = await buildScene(knex(), { owner: { org: 'OWNER' } });
  const user = await insertUser(knex());
  const path = `/v2/admin/organizations/${scene.orgId}/memberships`;
  const refused = await call('POST', path, {
    token: scene.users.owner.apiKey,
    body: { userId: user.id, role: 'MEMBER' },
  });
  t.is(refused.status, 403);
  const provisioned = await call('POST', path, {
    token: world.admin.apiKey,
    body: { email: user.email, role: 'MEMBER' },
  });
  t.is(provisioned.status, 201);
  t.like(provisioned.body.data, { userId: user.id, accepted: true, role: 'MEMBER' });
  t.is(
    (await call('POST', path, { token: world.admin.apiKey, body: { userId: user.id, role: 'MEMBER' } }))
      .status,
    409,
  );
  t.is(
    (await call('POST', path, { token: world.admin.apiKey, body: { userId: NEVER_USED_ID, role: 'MEMBER' } }))
      .status,
    404,
  );
});

test('the OpenAPI document shows the invitation endpoints and their rules', async (t) => {
  const document = (await call('GET', '/v2/openapi.json')).body;
  for (const path of [
    '/me/invitations',
    '/me/invitations/{membershipId}/accept',
    '/me/invitations/{membershipId}/decline',
  ]) {
    t.truthy(document.paths[path], path);
  }
  t.truthy(document.paths['/admin/organizations/{orgId}/memberships'].post);
  const invite = document.paths['/teams/{teamId}/memberships'].post;
  t.regex(invite.description, /the invited user must accept the invitation/);
  t.regex(invite.description, /User not found/);
  const patch = document.paths['/organizations/{orgId}/memberships/{membershipId}'].patch;
  t.regex(patch.description, /You cannot grant permissions you do not hold/);
  const remove = document.paths['/teams/{teamId}/memberships/{membershipId}'].delete;
  t.regex(remove.description, /A member may leave/);
});
