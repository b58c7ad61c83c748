import { HOST_DELETED_REASON } from '@sched/db/queries/account-deletion';
import { deleteManagedUser } from '@sched/db/queries/managed-users';
import { deleteOAuthClient } from '@sched/db/queries/oauth-client-management';
import { createUser, type User } from '@sched/db/queries/users';
import test from 'ava';
import {
  insertClient,
  insertMembership,
  insertOrganization,
  insertTeam,
  insertUser,
} from '../support/factories.ts';
import { FlowBrowser, issueTokens, tokenRequest } from '../support/oauth.ts';
import { attendee, FUTURE_YEAR, personalEventType, setAvailability } from '../support/scheduling.ts';
import { setUpWorld } from '../support/world.ts';

// DELETE /v2/me (API key or session -> 204; refused with 409 naming the organizations or teams
// where the user is the last OWNER; the account's tokens, keys, sessions and memberships go;
// bookings they host are cancelled).

const world = setUpWorld(test, { clients: { app: { scopes: ['PROFILE_READ', 'PROFILE_WRITE'] } } });
const { call } = world;
const knex = () => world.knex();

/** A booking hosted by `host` (a personal event type, available all week); returns its uid. */
async function bookingOf(host: { id: number; user: User }, day: number): Promise<string> {
  await setAvailability(knex(), host.user);
  const eventType = await personalEventType(knex(), host.id);
  const start = `${FUTURE_YEAR}-03-${String(day).padStart(2, '0')}T10:00:00.000Z`;
  const booked = await call('POST', '/v2/bookings', { body: { eventTypeId: eventType.id, start, attendee } });
  if (booked.status !== 201) throw new Error(`${booked.status} ${JSON.stringify(booked.body)}`);
  return booked.body.data.uid;
}

test('204: the account, its keys, OAuth tokens, sessions and memberships go; hosted bookings are cancelled', async (t) => {
  const user = await insertUser(knex());
  const secondKey = (await call('POST', '/v2/api-keys', { token: user.apiKey })).body.data.apiKey as string;
  const tokens = await issueTokens(world.system.url, world.clients.app, user);
  t.is((await call('GET', '/v2/me', { token: tokens.access_token })).status, 200);
  // A browser session at the authorization server.
  const browser = new FlowBrowser(world.system.url);
  const form = await browser.open('/auth/settings/sign-in');
  if (form.kind !== 'page') throw new Error('no sign-in page');
  await browser.submit(form, '/auth/settings/sign-in', { email: user.email, password: user.password });
  const signedInPage = await browser.open('/auth/settings');
  t.is(signedInPage.kind === 'page' && signedInPage.url.pathname, '/auth/settings');
  // Memberships: a member (not owner) of a team; an owner of an organization with another owner.
  const owner = await insertUser(knex());
  const teamId = await insertTeam(knex(), null, { name: 'Shared Team' });
  await insertMembership(knex(), { userId: owner.id, teamId, role: 'OWNER' });
  await insertMembership(knex(), { userId: user.id, teamId, role: 'MEMBER' });
  const orgId = await insertOrganization(knex(), { name: 'Two Owners Inc' });
  await insertMembership(knex(), { userId: owner.id, organizationId: orgId, role: 'OWNER' });
  await insertMembership(knex(), { userId: user.id, organizationId: orgId, role: 'OWNER' });
  const members = async () =>
    (await call('GET', `/v2/teams/${teamId}/memberships`, { token: owner.apiKey })).body.data.map(
      (m: { userId: number }) => m.userId,
    );
  t.true((await members()).includes(user.id)); // cached by the API now
  // Bookings: one hosted by the user, one by someone else.
  const hosted = await bookingOf(user, 3);
  const othersBooking = await bookingOf(owner, 4);

  const deleted = await call('DELETE', '/v2/me', { token: user.apiKey });
  t.is(deleted.status, 204);

  for (const token of [user.apiKey, secondKey, tokens.access_token])
    t.is((await call('GET', '/v2/me', { token })).status, 401);
  const refreshed = await tokenRequest(world.system.url, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: world.clients.app.client.id,
    client_secret: world.clients.app.secret!,
  });
  t.is(refreshed.status, 400);
  t.is(refreshed.body.error, 'invalid_grant');
  const after = await browser.open('/auth/settings');
  t.is(after.kind === 'page' && after.url.pathname, '/auth/settings/sign-in', 'the browser session ended');
  t.false((await members()).includes(user.id));
  t.is(await knex()('memberships').where({ user_id: user.id }).first(), undefined);
  t.is(await knex()('users').where({ id: user.id }).first(), undefined);
  t.is(await knex()('api_keys').where({ user_id: user.id }).first(), undefined);
  t.like(
    await knex()('audit_log')
      .where({ action: 'user.deleted', subject_id: String(user.id) })
      .first(),
    // The actor is who deleted it (the account itself, through its API key), by id only.
    { subject_type: 'user', actor_user_id: user.id, actor_kind: 'api_key' },
  );

  const booking = await knex()('bookings').where({ uid: hosted }).first();
  t.like(booking, { status: 'cancelled', cancellation_reason: HOST_DELETED_REASON, host_user_id: null });
  const cancelAgain = await call('POST', `/v2/bookings/${hosted}/cancel`, { body: {} });
  t.is(cancelAgain.status, 409);
  t.is(cancelAgain.body.error.message, 'Booking is already cancelled');
  t.is((await knex()('bookings').where({ uid: othersBooking }).first()).status, 'accepted');
  // The e-mail can be used again.
  t.is(
    (await call('POST', '/v2/admin/users', { token: world.admin.apiKey, body: { email: user.email } }))
      .status,
    201,
  );
});

test('409 names every organization and team where the user is the last accepted owner; nothing changes', async (t) => {
  const user = await insertUser(knex());
  const orgId = await insertOrganization(knex(), { name: 'Acme' });
  await insertMembership(knex(), { userId: user.id, organizationId: orgId, role: 'OWNER' });
  const teamId = await insertTeam(knex(), orgId, { name: 'Support' });
  await insertMembership(knex(), { userId: user.id, teamId, role: 'OWNER' });
  // An owner who has not accepted does not count; an ADMIN does not either.
  const invited = await insertUser(knex());
  await insertMembership(knex(), { userId: invited.id, teamId, role: 'OWNER', accepted: false });
  const admin = await insertUser(knex());
  await insertMembership(knex(), { userId: admin.id, organizationId: orgId, role: 'ADMIN' });
  // A team with a second accepted owner is not named.
  const sharedTeam = await insertTeam(knex(), null, { name: 'Shared' });
  await insertMembership(knex(), { userId: user.id, teamId: sharedTeam, role: 'OWNER' });
  await insertMembership(knex(), { userId: admin.id, teamId: sharedTeam, role: 'OWNER' });

  const refused = await call('DELETE', '/v2/me', { token: user.apiKey });
  t.is(refused.status, 409);
  t.is(
    refused.body.error.message,
    'You are the last owner of: organization "Acme", team "Support". Hand ownership to someone else or delete them first.',
  );
  t.deepEqual(refused.body.error.details, [
    { kind: 'organization', id: orgId, name: 'Acme' },
    { kind: 'team', id: teamId, name: 'Support' },
  ]);
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200);

  // Another accepted owner of each: the deletion goes through.
  await knex()('memberships').where({ user_id: invited.id, team_id: teamId }).update({ accepted: true });
  await knex()('memberships').where({ user_id: admin.id, organization_id: orgId }).update({ role: 'OWNER' });
  t.is((await call('DELETE', '/v2/me', { token: user.apiKey })).status, 204);
});

test('two last owners deleting themselves at once: exactly one succeeds', async (t) => {
  const teamId = await insertTeam(knex(), null, { name: 'Race Team' });
  const a = await insertUser(knex());
  const b = await insertUser(knex());
  await insertMembership(knex(), { userId: a.id, teamId, role: 'OWNER' });
  await insertMembership(knex(), { userId: b.id, teamId, role: 'OWNER' });
  const answers = await Promise.all([a, b].map((u) => call('DELETE', '/v2/me', { token: u.apiKey })));
  t.deepEqual(answers.map((r) => r.status).sort(), [204, 409]);
});

test('OAuth tokens cannot delete the account (403)', async (t) => {
  const user = await insertUser(knex());
  const tokens = await issueTokens(world.system.url, world.clients.app, user);
  const refused = await call('DELETE', '/v2/me', { token: tokens.access_token });
  t.is(refused.status, 403);
  t.is((await call('GET', '/v2/me', { token: user.apiKey })).status, 200);
});

test('no credential: 401', async (t) => {
  t.is((await call('DELETE', '/v2/me')).status, 401);
});

test("the OAuth clients the user owns go with the account, and their users' tokens end", async (t) => {
  const developer = await insertUser(knex());
  const client = await insertClient(knex(), { ownerUserId: developer.id, scopes: ['PROFILE_READ'] });
  const customer = await insertUser(knex());
  const tokens = await issueTokens(world.system.url, client, customer);
  t.is((await call('GET', '/v2/me', { token: tokens.access_token })).status, 200);
  t.is((await call('DELETE', '/v2/me', { token: developer.apiKey })).status, 204);
  t.is((await call('GET', '/v2/me', { token: tokens.access_token })).status, 401);
  t.is(await knex()('oauth_clients').where({ id: client.client.id }).first(), undefined);
  t.is((await call('GET', '/v2/me', { token: customer.apiKey })).status, 200, 'the customer account stays');
});

/** A managed user of `clientId` with one booking; returns the booking's uid. */
async function managedHostWithBooking(clientId: string, day: number): Promise<{ id: number; uid: string }> {
  const managed = await createUser(knex(), {
    email: `managed-${clientId.slice(0, 8)}-${day}@example.com`,
    managedByClientId: clientId,
  });
  return { id: managed.id, uid: await bookingOf({ id: managed.id, user: managed }, day) };
}

const bookingRow = async (uid: string) => knex()('bookings').where({ uid }).first();

test("a host leaving by any road leaves cancelled bookings: the account's clients' managed users, a managed user, a client", async (t) => {
  // DELETE /v2/me of a developer: the managed users of their clients go too.
  const developer = await insertUser(knex());
  const owned = await insertClient(knex(), { ownerUserId: developer.id });
  const viaAccount = await managedHostWithBooking(owned.client.id, 10);
  t.is((await call('DELETE', '/v2/me', { token: developer.apiKey })).status, 204);
  t.like(await bookingRow(viaAccount.uid), {
    status: 'cancelled',
    cancellation_reason: HOST_DELETED_REASON,
    host_user_id: null,
  });
  // A managed user deleted, and a client deleted with its managed users.
  const client = await insertClient(knex());
  const single = await managedHostWithBooking(client.client.id, 11);
  t.truthy(await deleteManagedUser(knex(), world.store(), client.client.id, single.id));
  const withClient = await managedHostWithBooking(client.client.id, 12);
  await deleteOAuthClient(knex(), world.store(), client.client.id); // PGlite reports no delete counts
  t.is(await knex()('oauth_clients').where({ id: client.client.id }).first(), undefined);
  for (const uid of [single.uid, withClient.uid])
    t.like(await bookingRow(uid), {
      status: 'cancelled',
      cancellation_reason: HOST_DELETED_REASON,
      host_user_id: null,
    });
  t.is(
    await knex()('bookings').whereNull('host_user_id').where({ status: 'accepted' }).first(),
    undefined,
    'no booking without host is still accepted',
  );
});
