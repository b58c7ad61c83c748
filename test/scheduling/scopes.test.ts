// OAuth access tokens on the scheduling routes: the scope each route declares, and public booking
// routes that accept a token without requiring one.
import test from 'ava';
import { createTestAccessToken } from '../support/tokens.ts';
import { insertOrganization, insertTeam } from '../support/factories.ts';
import { addMembership, makeOrganizationMember, makeUser } from '../support/scheduling.ts';
import { apiClient } from '../support/http.ts';
import { setUpWorld } from '../support/world.ts';

const { system, knex } = setUpWorld(test);
/** Paths under /v2; an empty body reads as null. */
const call = apiClient(() => system.url, { prefix: '/v2', emptyBody: null });

const token = (userId: number, scopes: string[], legacy = false) =>
  createTestAccessToken(system.stores, { userId, scopes, legacy });

const orgMember = () => makeOrganizationMember(knex());

test('booking limits: PROFILE_READ reads, PROFILE_WRITE patches and deletes; neither implies the other', async (t) => {
  const user = await orgMember();
  const read = await token(user.id, ['PROFILE_READ']);
  const write = await token(user.id, ['PROFILE_WRITE']);
  const other = await token(user.id, ['BOOKING_READ', 'EVENT_TYPE_WRITE']);
  t.is((await call('GET', '/me/booking-limits', { token: read })).status, 200);
  t.is((await call('PATCH', '/me/booking-limits', { token: write, body: { perDay: 2 } })).status, 200);
  t.is((await call('DELETE', '/me/booking-limits', { token: write })).status, 204);

  const denied = await call('GET', '/me/booking-limits', { token: write });
  t.is(denied.status, 403);
  t.is(
    denied.body.error.message,
    'insufficient_scope: token does not have the required scopes. Required: PROFILE_READ. Token has: PROFILE_WRITE',
  );
  t.regex(denied.headers.get('www-authenticate') ?? '', /insufficient_scope/);
  t.is((await call('PATCH', '/me/booking-limits', { token: read, body: { perDay: 2 } })).status, 403);
  t.is((await call('DELETE', '/me/booking-limits', { token: read })).status, 403);
  t.is((await call('GET', '/me/booking-limits', { token: other })).status, 403);
  // Legacy client tokens are not scope-checked.
  t.is((await call('GET', '/me/booking-limits', { token: await token(user.id, [], true) })).status, 200);
});

test('booking limits: the right scope does not get a non-organization user past the 403', async (t) => {
  const loner = await makeUser(knex());
  const reply = await call('GET', '/me/booking-limits', { token: await token(loner.id, ['PROFILE_READ']) });
  t.is(reply.status, 403);
  t.notRegex(reply.body.error.message, /insufficient_scope/);
});

test('event types, schedule and bookings list need their own scopes', async (t) => {
  const user = await orgMember();
  const body = { title: 'T', slug: 'scoped', lengthInMinutes: 30 };
  t.is(
    (await call('POST', '/event-types', { token: await token(user.id, ['EVENT_TYPE_READ']), body })).status,
    403,
  );
  const created = await call('POST', '/event-types', {
    token: await token(user.id, ['EVENT_TYPE_WRITE']),
    body,
  });
  t.is(created.status, 201);
  t.is(
    (await call('GET', '/event-types', { token: await token(user.id, ['EVENT_TYPE_WRITE']) })).status,
    403,
  );
  t.is((await call('GET', '/event-types', { token: await token(user.id, ['EVENT_TYPE_READ']) })).status, 200);
  t.is(
    (
      await call('GET', `/event-types/${created.body.data.id}`, {
        token: await token(user.id, ['EVENT_TYPE_READ']),
      })
    ).status,
    200,
  );
  const availability = { availability: [{ days: ['Monday'], startTime: '09:00', endTime: '10:00' }] };
  t.is(
    (
      await call('PUT', '/me/schedule', {
        token: await token(user.id, ['SCHEDULE_READ']),
        body: availability,
      })
    ).status,
    403,
  );
  t.is(
    (
      await call('PUT', '/me/schedule', {
        token: await token(user.id, ['SCHEDULE_WRITE']),
        body: availability,
      })
    ).status,
    200,
  );
  t.is((await call('GET', '/me/schedule', { token: await token(user.id, ['SCHEDULE_READ']) })).status, 200);
  t.is((await call('GET', '/bookings', { token: await token(user.id, ['BOOKING_WRITE']) })).status, 403);
  t.is((await call('GET', '/bookings', { token: await token(user.id, ['BOOKING_READ']) })).status, 200);
  const booked = await call('POST', '/bookings', {
    body: {
      eventTypeId: created.body.data.id,
      start: '2031-06-09T09:00:00Z',
      attendee: { name: 'Ada', email: 'ada@example.com', timeZone: 'UTC' },
    },
  });
  const one = `/bookings/${booked.body.data.uid}`;
  t.is((await call('GET', one, { token: await token(user.id, ['BOOKING_WRITE']) })).status, 403);
  t.is((await call('GET', one, { token: await token(user.id, ['BOOKING_READ']) })).status, 200);
});

test('team event types: TEAM_EVENT_TYPE_* scopes, ORG_ implies TEAM_', async (t) => {
  const org = await insertOrganization(knex());
  const teamId = await insertTeam(knex(), org);
  const admin = await makeUser(knex());
  await addMembership(knex(), admin.id, { teamId }, { role: 'ADMIN' });
  const body = (slug: string) => ({ title: 'T', slug, lengthInMinutes: 30, hostUserIds: [admin.id] });
  const path = `/teams/${teamId}/event-types`;
  t.is(
    (await call('POST', path, { token: await token(admin.id, ['EVENT_TYPE_WRITE']), body: body('a') }))
      .status,
    403,
  );
  t.is(
    (await call('POST', path, { token: await token(admin.id, ['TEAM_EVENT_TYPE_WRITE']), body: body('b') }))
      .status,
    201,
  );
  t.is(
    (await call('POST', path, { token: await token(admin.id, ['ORG_EVENT_TYPE_WRITE']), body: body('c') }))
      .status,
    201,
  );
  t.is((await call('GET', path, { token: await token(admin.id, ['TEAM_EVENT_TYPE_WRITE']) })).status, 403);
  t.is((await call('GET', path, { token: await token(admin.id, ['TEAM_EVENT_TYPE_READ']) })).status, 200);
});

test('public booking routes accept an OAuth token whatever its scopes, and work without one', async (t) => {
  const host = await makeUser(knex());
  const created = await call('POST', '/event-types', {
    token: await token(host.id, ['EVENT_TYPE_WRITE']),
    body: { title: 'Public', slug: 'public', lengthInMinutes: 30 },
  });
  const eventTypeId = created.body.data.id;
  const attendee = { name: 'Bo', email: 'bo@example.com', timeZone: 'UTC' };
  const booker = await makeUser(knex());
  const withToken = await call('POST', '/bookings', {
    token: await token(booker.id, ['PROFILE_READ']),
    body: { eventTypeId, start: '2031-06-10T09:00:00Z', attendee },
  });
  t.is(withToken.status, 201);
  const withBookingScope = await call('POST', '/bookings', {
    token: await token(booker.id, ['BOOKING_WRITE']),
    body: { eventTypeId, start: '2031-06-10T10:00:00Z', attendee },
  });
  t.is(withBookingScope.status, 201);
  const withoutToken = await call('POST', '/bookings', {
    body: { eventTypeId, start: '2031-06-10T11:00:00Z', attendee },
  });
  t.is(withoutToken.status, 201);
  const uid = withToken.body.data.uid;
  const moved = await call('POST', `/bookings/${uid}/reschedule`, {
    token: await token(booker.id, []),
    body: { start: '2031-06-10T12:00:00Z' },
  });
  t.is(moved.status, 201);
  const cancelled = await call('POST', `/bookings/${moved.body.data.uid}/cancel`, {
    token: await token(booker.id, ['BOOKING_WRITE']),
    body: {},
  });
  t.is(cancelled.status, 200);
  const slots = await call('GET', `/slots?eventTypeId=${eventTypeId}&start=2031-06-10&end=2031-06-10`, {
    token: await token(booker.id, []),
  });
  t.is(slots.status, 200);
  t.is(slots.body.data['2031-06-10'].length, 16 - 2);
});
