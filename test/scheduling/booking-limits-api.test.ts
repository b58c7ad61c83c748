// GET/PATCH/DELETE /v2/me/booking-limits over HTTP (docs/scheduling.md "Endpoints").
import { createApiKey } from '@sched/db/queries/api-keys';
import test from 'ava';
import { insertMembership, insertOrganization, insertTeam } from '../support/factories.ts';
import { addMembership, makeOrganizationMember, makeUser } from '../support/scheduling.ts';
import { apiClient } from '../support/http.ts';
import { setUpWorld } from '../support/world.ts';

const { system, knex } = setUpWorld(test);
/** Paths under /v2; an empty body reads as null. */
const call = apiClient(() => system.url, { prefix: '/v2', emptyBody: null });

/** A user with an accepted organization membership, and their API key. */
async function orgMember(): Promise<{ userId: number; key: string }> {
  const user = await makeOrganizationMember(knex());
  return { userId: user.id, key: (await createApiKey(knex(), user.id)).plain };
}

const NONE = { perDay: null, perWeek: null, perMonth: null, perYear: null };

test('an organization member starts with all four keys present and null', async (t) => {
  const { key } = await orgMember();
  const reply = await call('GET', '/me/booking-limits', { token: key });
  t.is(reply.status, 200);
  t.deepEqual(reply.body, { status: 'success', data: NONE });
});

test('PATCH merges: a value sets, an omitted key stays, null removes only that key', async (t) => {
  const { key } = await orgMember();
  let reply = await call('PATCH', '/me/booking-limits', { token: key, body: { perDay: 3 } });
  t.is(reply.status, 200);
  t.deepEqual(reply.body.data, { ...NONE, perDay: 3 });
  reply = await call('PATCH', '/me/booking-limits', { token: key, body: { perWeek: 10, perYear: 400 } });
  t.deepEqual(reply.body.data, { perDay: 3, perWeek: 10, perMonth: null, perYear: 400 });
  reply = await call('PATCH', '/me/booking-limits', { token: key, body: { perWeek: null } });
  t.deepEqual(reply.body.data, { perDay: 3, perWeek: null, perMonth: null, perYear: 400 });
  reply = await call('PATCH', '/me/booking-limits', { token: key, body: {} });
  t.deepEqual(
    reply.body.data,
    { perDay: 3, perWeek: null, perMonth: null, perYear: 400 },
    'empty patch changes nothing',
  );
  reply = await call('PATCH', '/me/booking-limits', {
    token: key,
    body: { perDay: 5, perMonth: 50, perYear: null },
  });
  t.deepEqual(reply.body.data, { perDay: 5, perWeek: null, perMonth: 50, perYear: null });
  t.deepEqual((await call('GET', '/me/booking-limits', { token: key })).body.data, reply.body.data);
});

test('DELETE removes every limit with 204 and no body', async (t) => {
  const { key } = await orgMember();
  await call('PATCH', '/me/booking-limits', {
    token: key,
    body: { perDay: 1, perWeek: 2, perMonth: 3, perYear: 4 },
  });
  const reply = await call('DELETE', '/me/booking-limits', { token: key });
  t.is(reply.status, 204);
  t.is(reply.body, null);
  t.deepEqual((await call('GET', '/me/booking-limits', { token: key })).body.data, NONE);
  t.is((await call('DELETE', '/me/booking-limits', { token: key })).status, 204, 'idempotent');
});

test('users outside any organization get 403 on all three methods', async (t) => {
  const loner = await makeUser(knex());
  const pending = await makeUser(knex());
  await addMembership(
    knex(),
    pending.id,
    { organizationId: await insertOrganization(knex()) },
    { accepted: false },
  );
  const teamOnly = await makeUser(knex());
  await addMembership(knex(), teamOnly.id, { teamId: await insertTeam(knex()) }, { role: 'OWNER' });
  for (const [label, user] of [
    ['no membership', loner],
    ['invitation not accepted', pending],
    ['member of a team outside any organization', teamOnly],
  ] as const) {
    const key = (await createApiKey(knex(), user.id)).plain;
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { perDay: 1 }],
      ['DELETE', undefined],
    ] as const) {
      const reply = await call(method, '/me/booking-limits', { token: key, body });
      t.is(reply.status, 403, `${label} ${method}`);
      t.is(reply.body.status, 'error');
      t.is(reply.body.error.code, 'Forbidden');
    }
  }
  // Nothing was written for them.
  t.is((await knex()('booking_limits').whereIn('user_id', [loner.id, pending.id, teamOnly.id])).length, 0);
});

test('a member of an organization team through the organization counts; an organization member works', async (t) => {
  const user = await makeUser(knex());
  const org = await insertOrganization(knex());
  await addMembership(knex(), user.id, { organizationId: org }, { role: 'MEMBER' });
  await addMembership(knex(), user.id, { teamId: await insertTeam(knex(), org) });
  const key = (await createApiKey(knex(), user.id)).plain;
  t.is((await call('PATCH', '/me/booking-limits', { token: key, body: { perMonth: 7 } })).status, 200);
});

test('no credential is 401', async (t) => {
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    const reply = await call(method, '/me/booking-limits', {
      body: method === 'PATCH' ? { perDay: 1 } : undefined,
    });
    t.is(reply.status, 401, method);
  }
});

test('invalid limits are 400 with details, and change nothing', async (t) => {
  const { key } = await orgMember();
  await call('PATCH', '/me/booking-limits', { token: key, body: { perDay: 2 } });
  const cases: Array<[string, unknown, string | null]> = [
    ['zero', { perDay: 0 }, 'body.perDay'],
    ['negative', { perWeek: -1 }, 'body.perWeek'],
    ['fractional', { perMonth: 1.5 }, 'body.perMonth'],
    ['string', { perYear: '3' }, 'body.perYear'],
    ['boolean', { perDay: true }, 'body.perDay'],
    ['too large for the column', { perDay: 2 ** 31 }, 'body.perDay'],
    ['unknown field', { perDay: 1, perHour: 1 }, 'body.perHour'],
    ['array body', [{ perDay: 1 }], 'body'],
    ['null body (not a JSON object)', null, null],
  ];
  for (const [label, body, field] of cases) {
    const reply = await call('PATCH', '/me/booking-limits', { token: key, body: JSON.stringify(body) });
    t.is(reply.status, 400, label);
    t.is(reply.body.error.code, 'BadRequest', label);
    if (field === null) continue;
    t.true(
      ((reply.body.error.details ?? []) as Array<{ field: string }>).some((d) => d.field === field),
      `${label}: ${JSON.stringify(reply.body.error.details)}`,
    );
  }
  t.deepEqual((await call('GET', '/me/booking-limits', { token: key })).body.data, { ...NONE, perDay: 2 });
});

test('GET /v2/me carries the same bookingLimits', async (t) => {
  const { key } = await orgMember();
  await call('PATCH', '/me/booking-limits', { token: key, body: { perWeek: 4 } });
  const me = await call('GET', '/me', { token: key });
  t.is(me.status, 200);
  t.deepEqual(me.body.data.bookingLimits, { ...NONE, perWeek: 4 });
  await call('DELETE', '/me/booking-limits', { token: key });
  t.deepEqual((await call('GET', '/me', { token: key })).body.data.bookingLimits, NONE);
  // A user outside any organization still sees all four keys (null) in /v2/me.
  const loner = await makeUser(knex());
  const lonerMe = await call('GET', '/me', { token: (await createApiKey(knex(), loner.id)).plain });
  t.deepEqual(lonerMe.body.data.bookingLimits, NONE);
});

test('leaving the last organization clears the limits, which the user could no longer reach (403); another organization keeps them', async (t) => {
  const user = await makeUser(knex());
  const key = (await createApiKey(knex(), user.id)).plain;
  const first = await insertOrganization(knex());
  const second = await insertOrganization(knex());
  const firstId = await insertMembership(knex(), { userId: user.id, organizationId: first, role: 'MEMBER' });
  const secondId = await insertMembership(knex(), {
    userId: user.id,
    organizationId: second,
    role: 'MEMBER',
  });
  const limits = { perDay: 1, perWeek: 2, perMonth: 3, perYear: 4 };
  t.is((await call('PATCH', '/me/booking-limits', { token: key, body: limits })).status, 200);

  const leftOne = await call('DELETE', `/organizations/${first}/memberships/${firstId}`, { token: key });
  t.is(leftOne.status, 200, JSON.stringify(leftOne.body));
  t.deepEqual((await call('GET', '/me/booking-limits', { token: key })).body.data, limits);

  const leftLast = await call('DELETE', `/organizations/${second}/memberships/${secondId}`, { token: key });
  t.is(leftLast.status, 200, JSON.stringify(leftLast.body));
  t.is((await call('GET', '/me/booking-limits', { token: key })).status, 403);
  t.deepEqual((await call('GET', '/me', { token: key })).body.data.bookingLimits, NONE);
  const left = await knex()('booking_limits').where({ user_id: user.id }).first();
  t.is(left, undefined, 'nothing left to limit the bookings of a user who cannot clear it');
});
