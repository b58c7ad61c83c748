// Event types, schedule, slots and bookings over HTTP, with booking limits in force.
// Dates are in 2031 so they are in the future whenever this runs (9 June 2031 is a Monday).
import { createApiKey } from '@sched/db/queries/api-keys';
import type { User } from '@sched/db/queries/users';
import test from 'ava';
import { insertOrganization, insertTeam } from '../support/factories.ts';
import { addMembership, makeOrganizationMember, makeUser, setAvailability } from '../support/scheduling.ts';
import { apiClient, type Json } from '../support/http.ts';
import { setUpWorld } from '../support/world.ts';

const { system, knex } = setUpWorld(test);
/** Paths under /v2; an empty body reads as null. */
const call = apiClient(() => system.url, { prefix: '/v2', emptyBody: null });

let slugs = 0;
const slug = () => `meeting-${++slugs}`;

/** An organization member (so they may set limits) with an API key. */
async function host(options: Parameters<typeof makeUser>[1] = {}): Promise<{ user: User; key: string }> {
  const user = await makeOrganizationMember(knex(), options);
  return { user, key: (await createApiKey(knex(), user.id)).plain };
}

async function eventType(key: string, body: Record<string, unknown> = {}): Promise<Json> {
  const reply = await call('POST', '/event-types', {
    token: key,
    body: { title: 'Intro call', slug: slug(), lengthInMinutes: 60, ...body },
  });
  if (reply.status !== 201) throw new Error(`event type: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

const bookingBody = (eventTypeId: number, start: string) => ({
  eventTypeId,
  start,
  attendee: { name: 'Ada', email: 'ada@example.com', timeZone: 'Europe/London' },
});

const book = (eventTypeId: number, start: string, token?: string) =>
  call('POST', '/bookings', { body: bookingBody(eventTypeId, start), ...(token ? { token } : {}) });

const slots = (query: Record<string, string | number>) =>
  call(
    'GET',
    `/slots?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}`,
  );

// ---- event types --------------------------------------------------------------------------

test('personal event types: create, list, get; duplicate slug 409; other users see 404', async (t) => {
  const { user, key } = await host();
  const created = await call('POST', '/event-types', {
    token: key,
    body: { title: 'Intro', slug: 'intro', lengthInMinutes: 30, bookingLimits: { perDay: 2 } },
  });
  t.is(created.status, 201);
  t.like(created.body.data, {
    title: 'Intro',
    slug: 'intro',
    lengthInMinutes: 30,
    ownerId: user.id,
    teamId: null,
    hostUserIds: [user.id],
    bookingLimits: { perDay: 2, perWeek: null, perMonth: null, perYear: null },
  });
  const id = created.body.data.id;
  const duplicate = await call('POST', '/event-types', {
    token: key,
    body: { title: 'Again', slug: 'INTRO', lengthInMinutes: 30 },
  });
  t.is(duplicate.status, 409);
  const list = await call('GET', '/event-types', { token: key });
  t.deepEqual(
    list.body.data.map((e: Json) => e.id),
    [id],
  );
  t.is((await call('GET', `/event-types/${id}`, { token: key })).body.data.slug, 'intro');
  const stranger = await host();
  t.is((await call('GET', `/event-types/${id}`, { token: stranger.key })).status, 404);
  t.deepEqual((await call('GET', '/event-types', { token: stranger.key })).body.data, []);
  t.is((await call('GET', '/event-types/999999', { token: key })).status, 404);
});

test('event type input is validated (400)', async (t) => {
  const { key } = await host();
  const base = { title: 'X', slug: 'x-valid', lengthInMinutes: 30 };
  for (const [label, body] of [
    ['length 0', { ...base, lengthInMinutes: 0 }],
    ['length over a day', { ...base, lengthInMinutes: 1441 }],
    ['fractional length', { ...base, lengthInMinutes: 2.5 }],
    ['empty title', { ...base, title: ' ' }],
    ['bad slug', { ...base, slug: 'a b' }],
    ['limit 0', { ...base, bookingLimits: { perDay: 0 } }],
    ['limit negative', { ...base, bookingLimits: { perWeek: -2 } }],
    ['limit fractional', { ...base, bookingLimits: { perMonth: 0.5 } }],
    ['limit string', { ...base, bookingLimits: { perYear: '1' } }],
    ['unknown limit', { ...base, bookingLimits: { perHour: 1 } }],
    ['unknown field', { ...base, color: 'red' }],
    ['hosts on a personal type', { ...base, hostUserIds: [1] }],
  ] as const) {
    const reply = await call('POST', '/event-types', { token: key, body });
    t.is(reply.status, 400, label);
  }
  t.is((await call('POST', '/event-types', { body: base })).status, 401);
});

test('team event types: admins create with hosts who are accepted members; members read; others are refused', async (t) => {
  const org = await insertOrganization(knex());
  const teamId = await insertTeam(knex(), org);
  const admin = await makeUser(knex());
  const member = await makeUser(knex());
  const invited = await makeUser(knex());
  const outsider = await makeUser(knex());
  await addMembership(knex(), admin.id, { teamId }, { role: 'ADMIN' });
  await addMembership(knex(), member.id, { teamId }, { role: 'MEMBER' });
  await addMembership(knex(), invited.id, { teamId }, { accepted: false });
  const [adminKey, memberKey, outsiderKey] = await Promise.all(
    [admin, member, outsider].map(async (u) => (await createApiKey(knex(), u.id)).plain),
  );
  const body = { title: 'Support', slug: 'support', lengthInMinutes: 30, hostUserIds: [member.id, admin.id] };
  const created = await call('POST', `/teams/${teamId}/event-types`, { token: adminKey, body });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body.data, {
    teamId,
    ownerId: null,
    hostUserIds: [admin.id, member.id].sort((a, b) => a - b),
  });
  const id = created.body.data.id;

  const notMember = await call('POST', `/teams/${teamId}/event-types`, {
    token: adminKey,
    body: { ...body, slug: 'other', hostUserIds: [admin.id, invited.id, outsider.id] },
  });
  t.is(notMember.status, 400);
  t.is(notMember.body.error.details.length, 2);
  t.is(
    (await call('POST', `/teams/${teamId}/event-types`, { token: memberKey, body: { ...body, slug: 'm' } }))
      .status,
    403,
  );
  t.is(
    (await call('POST', `/teams/${teamId}/event-types`, { token: outsiderKey, body: { ...body, slug: 'o' } }))
      .status,
    403,
  );

  const listed = await call('GET', `/teams/${teamId}/event-types`, { token: memberKey });
  t.is(listed.status, 200);
  t.deepEqual(
    listed.body.data.map((e: Json) => e.id),
    [id],
  );
  t.is((await call('GET', `/teams/${teamId}/event-types/${id}`, { token: memberKey })).status, 200);
  t.is((await call('GET', `/teams/${teamId}/event-types`, { token: outsiderKey })).status, 403);
  t.is((await call('GET', '/teams/999999/event-types', { token: adminKey })).status, 404);
  const otherTeam = await insertTeam(knex(), org);
  await addMembership(knex(), member.id, { teamId: otherTeam });
  t.is((await call('GET', `/teams/${otherTeam}/event-types/${id}`, { token: memberKey })).status, 404);
});

// ---- schedule -----------------------------------------------------------------------------

test('PUT /v2/me/schedule replaces the availability; GET shows it grouped', async (t) => {
  const { key } = await host({ timeZone: 'Europe/Berlin' });
  const initial = await call('GET', '/me/schedule', { token: key });
  t.is(initial.status, 200);
  t.deepEqual(initial.body.data.availability, [
    { days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], startTime: '09:00', endTime: '17:00' },
  ]);
  t.is(initial.body.data.timeZone, 'Europe/Berlin');
  const availability = [
    { days: ['Monday', 'Wednesday'], startTime: '08:00', endTime: '12:00' },
    { days: ['Monday'], startTime: '13:00', endTime: '17:30' },
    { days: ['Saturday'], startTime: '20:00', endTime: '24:00' },
  ];
  const put = await call('PUT', '/me/schedule', { token: key, body: { availability } });
  t.is(put.status, 200);
  t.deepEqual(put.body.data.availability, availability);
  t.deepEqual((await call('GET', '/me/schedule', { token: key })).body.data.availability, availability);
  const cleared = await call('PUT', '/me/schedule', { token: key, body: { availability: [] } });
  t.deepEqual(cleared.body.data.availability, []);
});

test('PATCH /v2/me with a new timeZone moves the default schedule: slots and bookings follow the new zone', async (t) => {
  const { key } = await host({ timeZone: 'UTC' });
  const type = await eventType(key, { lengthInMinutes: 480 });
  const moved = await call('PATCH', '/me', { token: key, body: { timeZone: 'america/new_york' } });
  t.is(moved.status, 200);
  t.is(moved.body.data.timeZone, 'America/New_York');
  const schedule = await call('GET', '/me/schedule', { token: key });
  t.is(schedule.body.data.timeZone, 'America/New_York');
  t.deepEqual(schedule.body.data.availability, [
    { days: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'], startTime: '09:00', endTime: '17:00' },
  ]);
  const reply = await slots({
    eventTypeId: type.id,
    start: '2031-06-10',
    end: '2031-06-10',
    timeZone: 'America/New_York',
  });
  t.deepEqual(reply.body.data, { '2031-06-10': [{ start: '2031-06-10T09:00:00.000-04:00' }] });
  t.is((await book(type.id, '2031-06-10T09:00:00-04:00')).status, 201);
  // A patch without timeZone leaves the schedule's zone alone.
  await call('PATCH', '/me', { token: key, body: { name: 'Still here' } });
  t.is((await call('GET', '/me/schedule', { token: key })).body.data.timeZone, 'America/New_York');
});

test('PUT /v2/me/schedule validates times, days and overlaps (400)', async (t) => {
  const { key } = await host();
  for (const [label, availability] of [
    ['end before start', [{ days: ['Monday'], startTime: '12:00', endTime: '09:00' }]],
    ['equal times', [{ days: ['Monday'], startTime: '09:00', endTime: '09:00' }]],
    ['bad time', [{ days: ['Monday'], startTime: '9:00', endTime: '17:00' }]],
    ['25:00', [{ days: ['Monday'], startTime: '09:00', endTime: '25:00' }]],
    ['bad day', [{ days: ['Funday'], startTime: '09:00', endTime: '17:00' }]],
    ['no days', [{ days: [], startTime: '09:00', endTime: '17:00' }]],
    [
      'overlap',
      [
        { days: ['Monday'], startTime: '09:00', endTime: '12:00' },
        { days: ['Monday', 'Tuesday'], startTime: '11:00', endTime: '13:00' },
      ],
    ],
  ] as const) {
    t.is((await call('PUT', '/me/schedule', { token: key, body: { availability } })).status, 400, label);
  }
  t.is((await call('PUT', '/me/schedule', { token: key, body: { availability: [], extra: 1 } })).status, 400);
  t.is((await call('PUT', '/me/schedule', { body: { availability: [] } })).status, 401);
});

// ---- slots --------------------------------------------------------------------------------

test('GET /v2/slots is public and groups slot starts by date in the requested zone', async (t) => {
  const { key } = await host({ timeZone: 'Europe/Berlin' });
  const type = await eventType(key, { lengthInMinutes: 240 });
  const reply = await slots({
    eventTypeId: type.id,
    start: '2031-06-09',
    end: '2031-06-10',
    timeZone: 'Europe/Berlin',
  });
  t.is(reply.status, 200);
  t.deepEqual(reply.body, {
    status: 'success',
    data: {
      '2031-06-09': [{ start: '2031-06-09T09:00:00.000+02:00' }, { start: '2031-06-09T13:00:00.000+02:00' }],
      '2031-06-10': [{ start: '2031-06-10T09:00:00.000+02:00' }, { start: '2031-06-10T13:00:00.000+02:00' }],
    },
  });
  // The same slots seen from Tokyo: 16:00 and 20:00 on the same dates.
  const tokyo = await slots({
    eventTypeId: type.id,
    start: '2031-06-09',
    end: '2031-06-09',
    timeZone: 'Asia/Tokyo',
  });
  t.deepEqual(tokyo.body.data, {
    '2031-06-09': [{ start: '2031-06-09T16:00:00.000+09:00' }, { start: '2031-06-09T20:00:00.000+09:00' }],
  });
  // ISO date-times, and UTC by default.
  const iso = await slots({
    eventTypeId: type.id,
    start: '2031-06-09T10:00:00Z',
    end: '2031-06-09T11:00:00Z',
  });
  t.deepEqual(iso.body.data, { '2031-06-09': [{ start: '2031-06-09T11:00:00.000Z' }] });
  // A weekend: nothing.
  t.deepEqual((await slots({ eventTypeId: type.id, start: '2031-06-14', end: '2031-06-15' })).body.data, {});
});

test('GET /v2/slots: a date-time without offset is read in timeZone; an unencoded + of an offset is understood', async (t) => {
  const { key } = await host({ timeZone: 'Europe/Berlin' });
  const type = await eventType(key, { lengthInMinutes: 240 });
  const expected = { '2031-06-09': [{ start: '2031-06-09T13:00:00.000+02:00' }] };
  const local = await slots({
    eventTypeId: type.id,
    start: '2031-06-09T10:00:00',
    end: '2031-06-09T13:00:00',
    timeZone: 'Europe/Berlin',
  });
  t.is(local.status, 200);
  t.deepEqual(local.body.data, expected);
  // Without timeZone the same wall-clock times are UTC: 12:00 and 15:00 Berlin, no slot starts then.
  t.deepEqual(
    (await slots({ eventTypeId: type.id, start: '2031-06-09T10:00:00', end: '2031-06-09T10:59:00' })).body
      .data,
    {},
  );
  // `?start=...+02:00` written straight into a URL: the + arrives as a space.
  const plain = await call(
    'GET',
    `/slots?eventTypeId=${type.id}&start=2031-06-09T10:00:00+02:00&end=2031-06-09T13:00:00+02:00&timeZone=Europe/Berlin`,
  );
  t.is(plain.status, 200);
  t.deepEqual(plain.body.data, expected);
  t.is((await slots({ eventTypeId: type.id, start: '2031-06-09T25:00:00', end: '2031-06-10' })).status, 400);
});

test('GET /v2/slots on DST days: a 23-hour and a 25-hour local day, offsets per slot, the repeated hour twice', async (t) => {
  const { user, key } = await host({ timeZone: 'America/New_York' });
  await setAvailability(knex(), user);
  const type = await eventType(key, { lengthInMinutes: 60 });
  const day = async (date: string) =>
    (await slots({ eventTypeId: type.id, start: date, end: date, timeZone: 'America/New_York' })).body.data[
      date
    ].map((slot: Json) => slot.start);
  const spring = await day('2031-03-09');
  t.is(spring.length, 23);
  t.deepEqual(spring.slice(1, 3), ['2031-03-09T01:00:00.000-05:00', '2031-03-09T03:00:00.000-04:00']);
  t.is(spring.at(-1), '2031-03-09T23:00:00.000-04:00');
  const autumn = await day('2031-11-02');
  t.is(autumn.length, 25);
  t.deepEqual(autumn.slice(1, 4), [
    '2031-11-02T01:00:00.000-04:00',
    '2031-11-02T01:00:00.000-05:00',
    '2031-11-02T02:00:00.000-05:00',
  ]);
  // Seen from London (no change that day there), the same instants fall on London's dates.
  const london = await slots({
    eventTypeId: type.id,
    start: '2031-03-09',
    end: '2031-03-09',
    timeZone: 'Europe/London',
  });
  t.deepEqual(Object.keys(london.body.data), ['2031-03-09']);
  t.is(london.body.data['2031-03-09'][0].start, '2031-03-09T00:00:00.000+00:00');
  t.is(london.body.data['2031-03-09'].length, 24);
});

test('GET /v2/slots validates its query', async (t) => {
  const { key } = await host();
  const type = await eventType(key);
  for (const [label, query, status] of [
    ['no eventTypeId', { start: '2031-06-09', end: '2031-06-10' }, 400],
    ['bad eventTypeId', { eventTypeId: 'x', start: '2031-06-09', end: '2031-06-10' }, 400],
    ['bad date', { eventTypeId: type.id, start: '2031-13-09', end: '2031-06-10' }, 400],
    [
      'bad zone',
      { eventTypeId: type.id, start: '2031-06-09', end: '2031-06-10', timeZone: 'Mars/Base' },
      400,
    ],
    ['end before start', { eventTypeId: type.id, start: '2031-06-10', end: '2031-06-09' }, 400],
    ['range too long', { eventTypeId: type.id, start: '2031-01-01', end: '2031-12-31' }, 400],
    ['unknown event type', { eventTypeId: 999999, start: '2031-06-09', end: '2031-06-10' }, 404],
  ] as const) {
    t.is((await slots(query as Record<string, string | number>)).status, status, label);
  }
});

// ---- bookings -----------------------------------------------------------------------------

test('POST /v2/bookings is public: 201 with the booking; taken or outside availability is 409 slot_unavailable', async (t) => {
  const { user, key } = await host({ timeZone: 'Europe/Berlin' });
  const type = await eventType(key);
  const created = await book(type.id, '2031-06-09T09:00:00+02:00');
  t.is(created.status, 201);
  t.like(created.body.data, {
    eventTypeId: type.id,
    start: '2031-06-09T07:00:00.000Z',
    end: '2031-06-09T08:00:00.000Z',
    status: 'accepted',
    hosts: [{ id: user.id, email: user.email, timeZone: 'Europe/Berlin' }],
    attendees: [{ name: 'Ada', email: 'ada@example.com', timeZone: 'Europe/London' }],
  });
  t.regex(created.body.data.uid, /^[A-Za-z0-9_-]{16,}$/);
  for (const start of [
    '2031-06-09T09:30:00+02:00',
    '2031-06-14T10:00:00+02:00',
    '2031-06-09T17:00:00+02:00',
  ]) {
    const reply = await book(type.id, start);
    t.is(reply.status, 409, start);
    t.is(reply.body.error.message, 'slot_unavailable', start);
  }
  t.is((await book(999999, '2031-06-09T12:00:00Z')).status, 404);
});

test('POST /v2/bookings validates its body (400)', async (t) => {
  const { key } = await host();
  const type = await eventType(key);
  const good = bookingBody(type.id, '2031-06-10T09:00:00Z');
  for (const [label, body] of [
    ['missing start', { ...good, start: undefined }],
    ['date only', { ...good, start: '2031-06-10' }],
    ['no offset', { ...good, start: '2031-06-10T09:00:00' }],
    ['bad email', { ...good, attendee: { ...good.attendee, email: 'nope' } }],
    ['bad zone', { ...good, attendee: { ...good.attendee, timeZone: 'Nowhere/City' } }],
    ['string id', { ...good, eventTypeId: String(type.id) }],
    ['unknown field', { ...good, notes: 'hi' }],
    ['unknown attendee field', { ...good, attendee: { ...good.attendee, phone: '1' } }],
  ] as const) {
    t.is((await call('POST', '/bookings', { body })).status, 400, label);
  }
});

test('booking limits over HTTP: 409 booking_limit_reached, slots hidden for the full day and back the next', async (t) => {
  const { key } = await host();
  await call('PATCH', '/me/booking-limits', { token: key, body: { perDay: 2 } });
  const type = await eventType(key);
  const day = { eventTypeId: type.id, start: '2031-06-10', end: '2031-06-11' };
  t.is(Object.keys((await slots(day)).body.data).length, 2);
  t.is((await book(type.id, '2031-06-10T09:00:00Z')).status, 201);
  const second = await book(type.id, '2031-06-10T10:00:00Z');
  t.is(second.status, 201);
  const refused = await book(type.id, '2031-06-10T11:00:00Z');
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'Conflict');
  t.is(refused.body.error.message, 'booking_limit_reached');
  t.deepEqual(Object.keys((await slots(day)).body.data), ['2031-06-11'], 'the full day shows no slots');
  t.is((await book(type.id, '2031-06-11T09:00:00Z')).status, 201, 'the next day is open');

  // Cancelling frees a place; the day's slots come back.
  const cancelled = await call('POST', `/bookings/${second.body.data.uid}/cancel`, {
    body: { cancellationReason: 'conflict' },
  });
  t.is(cancelled.status, 200);
  t.like(cancelled.body.data, { status: 'cancelled', cancellationReason: 'conflict' });
  t.deepEqual(Object.keys((await slots(day)).body.data), ['2031-06-10', '2031-06-11']);
  t.is((await call('POST', `/bookings/${second.body.data.uid}/cancel`, {})).status, 409, 'already cancelled');
  t.is((await book(type.id, '2031-06-10T11:00:00Z')).status, 201);
});

test('reschedule over HTTP: the old booking is cancelled and stops counting', async (t) => {
  const { key } = await host();
  await call('PATCH', '/me/booking-limits', { token: key, body: { perDay: 1 } });
  const type = await eventType(key);
  const first = await book(type.id, '2031-06-10T09:00:00Z');
  const moved = await call('POST', `/bookings/${first.body.data.uid}/reschedule`, {
    body: { start: '2031-06-12T09:00:00Z' },
  });
  t.is(moved.status, 201);
  t.like(moved.body.data, {
    start: '2031-06-12T09:00:00.000Z',
    rescheduledFromUid: first.body.data.uid,
    status: 'accepted',
  });
  t.is((await book(type.id, '2031-06-10T15:00:00Z')).status, 201, 'the old day is free again');
  const full = await call('POST', `/bookings/${moved.body.data.uid}/reschedule`, {
    body: { start: '2031-06-10T12:00:00Z' },
  });
  t.is(full.status, 409);
  t.is(full.body.error.message, 'booking_limit_reached');
  t.is(
    (
      await call('POST', `/bookings/${first.body.data.uid}/reschedule`, {
        body: { start: '2031-06-13T09:00:00Z' },
      })
    ).status,
    409,
  );
  t.is(
    (await call('POST', '/bookings/nope/reschedule', { body: { start: '2031-06-13T09:00:00Z' } })).status,
    404,
  );
  t.is((await call('POST', `/bookings/${moved.body.data.uid}/reschedule`, { body: {} })).status, 400);
});

test('GET /v2/bookings lists the caller’s bookings as host (with BOOKING_READ for tokens)', async (t) => {
  const { user, key } = await host();
  const other = await host();
  const type = await eventType(key);
  const otherType = await eventType(other.key);
  const a = await book(type.id, '2031-06-11T10:00:00Z');
  const b = await book(type.id, '2031-06-10T10:00:00Z', other.key); // a credential may be sent to a public route
  t.is(b.status, 201);
  await book(otherType.id, '2031-06-10T10:00:00Z');
  await call('POST', `/bookings/${a.body.data.uid}/cancel`, {});
  const list = await call('GET', '/bookings', { token: key });
  t.is(list.status, 200);
  t.deepEqual(
    list.body.data.map((x: Json) => [x.uid, x.status]),
    [
      [b.body.data.uid, 'accepted'],
      [a.body.data.uid, 'cancelled'],
    ],
  );
  t.true(list.body.data.every((x: Json) => x.hosts[0].id === user.id));
  const accepted = await call('GET', '/bookings?status=accepted&take=10', { token: key });
  t.deepEqual(
    accepted.body.data.map((x: Json) => x.uid),
    [b.body.data.uid],
  );
  const second = await call('GET', '/bookings?skip=1&take=1', { token: key });
  t.deepEqual(
    second.body.data.map((x: Json) => x.uid),
    [a.body.data.uid],
  );
  t.deepEqual((await call('GET', '/bookings?skip=2', { token: key })).body.data, []);
  t.is((await call('GET', '/bookings?take=0', { token: key })).status, 400);
  t.is((await call('GET', '/bookings?status=maybe', { token: key })).status, 400);
  for (const [query, field] of [
    ['take=251', 'query.take'],
    ['take=abc', 'query.take'],
    ['take=1.5', 'query.take'],
    ['skip=-1', 'query.skip'],
    ['take=1&take=2', 'query.take'],
    ['stauts=cancelled', 'query.stauts'],
  ] as const) {
    const refused = await call('GET', `/bookings?${query}`, { token: key });
    t.is(refused.status, 400, query);
    t.like(refused.body, { status: 'error', path: '/v2/bookings', error: { code: 'BadRequest' } }, query);
    t.deepEqual(
      refused.body.error.details.map((d: Json) => d.field),
      [field],
      query,
    );
  }
  t.is((await call('GET', '/bookings')).status, 401);
});

test('GET /v2/bookings/:uid shows one of the caller’s bookings as host; anyone else’s or an unknown uid is 404', async (t) => {
  const { user, key } = await host();
  const stranger = await host();
  const type = await eventType(key);
  const created = await book(type.id, '2031-06-12T10:00:00Z');
  const uid = created.body.data.uid;
  const shown = await call('GET', `/bookings/${uid}`, { token: key });
  t.is(shown.status, 200);
  t.deepEqual(shown.body.data, created.body.data);
  t.is(shown.body.data.hosts[0].id, user.id);
  await call('POST', `/bookings/${uid}/cancel`, { body: { cancellationReason: 'ill' } });
  t.like((await call('GET', `/bookings/${uid}`, { token: key })).body.data, {
    status: 'cancelled',
    cancellationReason: 'ill',
  });
  const foreign = await call('GET', `/bookings/${uid}`, { token: stranger.key });
  const unknown = await call('GET', '/bookings/AAAAAAAAAAAAAAAAAAAAAA', { token: stranger.key });
  t.is(foreign.status, 404);
  t.deepEqual(
    [foreign.body.error, unknown.body.error],
    [
      { code: 'NotFound', message: 'Booking not found' },
      { code: 'NotFound', message: 'Booking not found' },
    ],
    'another host’s booking answers exactly as an unknown uid',
  );
  t.is((await call('GET', '/bookings/not%20a%20uid', { token: key })).status, 400);
  t.is((await call('GET', `/bookings/${uid}`)).status, 401);
});

test('team event types over HTTP: a free host under their limits is assigned', async (t) => {
  const teamId = await insertTeam(knex());
  const a = await host();
  const b = await host();
  for (const h of [a, b]) await addMembership(knex(), h.user.id, { teamId }, { role: 'ADMIN' });
  await call('PATCH', '/me/booking-limits', { token: a.key, body: { perDay: 1 } });
  await call('PATCH', '/me/booking-limits', { token: b.key, body: { perDay: 1 } });
  const created = await call('POST', `/teams/${teamId}/event-types`, {
    token: a.key,
    body: { title: 'Team', slug: 'team', lengthInMinutes: 60, hostUserIds: [a.user.id, b.user.id] },
  });
  t.is(created.status, 201);
  const id = created.body.data.id;
  const first = await book(id, '2031-06-10T09:00:00Z');
  const second = await book(id, '2031-06-10T09:00:00Z');
  t.is(first.status, 201);
  t.is(second.status, 201);
  t.deepEqual(
    [first.body.data.hosts[0].id, second.body.data.hosts[0].id].sort((x, y) => x - y),
    [a.user.id, b.user.id].sort((x, y) => x - y),
  );
  const third = await book(id, '2031-06-10T12:00:00Z');
  t.is(third.status, 409);
  t.is(third.body.error.message, 'booking_limit_reached');
  t.deepEqual(
    Object.keys((await slots({ eventTypeId: id, start: '2031-06-10', end: '2031-06-11' })).body.data),
    ['2031-06-11'],
  );
});

test('50 simultaneous HTTP booking requests against a limit of 5 accept exactly 5', async (t) => {
  const { user, key } = await host();
  await setAvailability(knex(), user);
  await call('PATCH', '/me/booking-limits', { token: key, body: { perWeek: 5 } });
  const type = await eventType(key, { lengthInMinutes: 15 });
  const starts = Array.from(
    { length: 50 },
    (_, i) => new Date(Date.parse('2031-06-09T00:00:00Z') + i * 3 * 3_600_000),
  );
  const replies = await Promise.all(starts.map((start) => book(type.id, start.toISOString())));
  const statuses = replies.map((r) => r.status);
  t.is(statuses.filter((s) => s === 201).length, 5);
  // 50 starts 3 hours apart from Monday 00:00: all inside one Monday-start week.
  t.is(
    replies.filter((r) => r.status === 409 && r.body.error.message === 'booking_limit_reached').length,
    45,
  );
  t.is(statuses.filter((s) => s !== 201 && s !== 409).length, 0);
});
