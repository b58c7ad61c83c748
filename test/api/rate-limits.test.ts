import test from 'ava';
import { startTestSystem, type TestSystem } from '../support/system.ts';
import { buildScene } from '../support/world.ts';
import { insertUser } from '../support/factories.ts';
import { type ApiResponse, apiClient, type Call, pool } from '../support/http.ts';

// Rate limits of the resource API (docs: services/api/README.md, "Rate limits"): declared next to
// the route, counted per caller in the token store, 429 in the error envelope with Retry-After.
// Each test uses callers of its own, so the counters of one test never reach another.

let system: TestSystem;
let call: Call;

test.before(async () => {
  system = await startTestSystem();
  call = apiClient(system.url);
});
test.after.always(async () => {
  await system?.close();
});

function isRateLimited(
  t: { is: (a: unknown, b: unknown, m?: string) => void; regex: (s: string, r: RegExp) => void },
  response: ApiResponse,
  message: RegExp,
) {
  t.is(response.status, 429, JSON.stringify(response.body));
  t.is(response.body.status, 'error');
  t.is(response.body.error.code, 'TooManyRequests');
  t.regex(response.body.error.message, message);
  t.regex(response.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
  t.regex(response.headers.get('x-request-id') ?? '', /.+/);
}

test('API keys: 50 created per user and hour, the 51st is 429; another user is not affected', async (t) => {
  const knex = system.stores.db.knex;
  const [heavy, other] = [await insertUser(knex), await insertUser(knex)];
  const created = await pool(Array.from({ length: 50 }), 8, () =>
    call('POST', '/v2/api-keys', { token: heavy.apiKey }),
  );
  t.deepEqual(
    created.map((r) => r.status),
    Array(50).fill(201),
  );
  isRateLimited(
    t,
    await call('POST', '/v2/api-keys', { token: heavy.apiKey }),
    /^Too many API keys created\. Try again in \d+ minutes\.$/,
  );
  // Nothing was created by the refused request.
  t.is((await call('GET', '/v2/api-keys', { token: heavy.apiKey })).body.data.length, 51);
  t.is((await call('POST', '/v2/api-keys', { token: other.apiKey })).status, 201);
});

test('public bookings: 120 a minute per IP address when anonymous; a signed-in caller counts on its own', async (t) => {
  const knex = system.stores.db.knex;
  // An unknown event type: valid input (so counted), answered 404 by the handler.
  const body = {
    eventTypeId: 999_999_999,
    start: '2031-06-09T09:00:00Z',
    attendee: { name: 'Ann', email: 'ann@example.test', timeZone: 'UTC' },
  };
  const answers = await pool(Array.from({ length: 120 }), 8, () => call('POST', '/v2/bookings', { body }));
  t.deepEqual(
    answers.map((r) => r.status),
    Array(120).fill(404),
  );
  isRateLimited(
    t,
    await call('POST', '/v2/bookings', { body }),
    /^Too many bookings\. Try again in \d+ seconds?\.$/,
  );
  // Invalid input is refused before counting (400, not 429), and says nothing of the allowance.
  const invalid = await call('POST', '/v2/bookings', { body: { eventTypeId: 'x' } });
  t.is(invalid.status, 400);
  t.is(invalid.headers.get('ratelimit-remaining'), null);
  const signedIn = await insertUser(knex);
  t.is((await call('POST', '/v2/bookings', { body, token: signedIn.apiKey })).status, 404);
});

test('booking changes: cancel and reschedule share 120 a minute per IP address when anonymous', async (t) => {
  // Unknown uids: valid input (so counted), answered 404. The uid is the capability of these public
  // routes, so the limit is what keeps anyone from trying uids at speed.
  const answers = await pool(Array.from({ length: 120 }), 8, (_, i) =>
    i % 2 === 0
      ? call('POST', `/v2/bookings/no-such-booking-${i}/cancel`, { body: {} })
      : call('POST', `/v2/bookings/no-such-booking-${i}/reschedule`, {
          body: { start: '2031-06-09T09:00:00Z' },
        }),
  );
  t.deepEqual(
    answers.map((r) => r.status),
    Array(120).fill(404),
  );
  isRateLimited(
    t,
    await call('POST', '/v2/bookings/no-such-booking/cancel', { body: {} }),
    /^Too many booking changes\. Try again in \d+ seconds?\.$/,
  );
  isRateLimited(
    t,
    await call('POST', '/v2/bookings/no-such-booking/reschedule', {
      body: { start: '2031-06-09T09:00:00Z' },
    }),
    /^Too many booking changes\./,
  );
});

test('invitations: 100 per inviter and hour, by e-mail or by id; the 101st creates nothing', async (t) => {
  const knex = system.stores.db.knex;
  const scene = await buildScene(knex, { owner: { org: 'OWNER' }, colleague: { org: 'MEMBER' } });
  const path = `/v2/organizations/${scene.orgId}/memberships`;
  const invited = await pool(Array.from({ length: 100 }), 8, (_, i) =>
    call('POST', path, {
      token: scene.users.owner.apiKey,
      body: { email: `invitee-${scene.orgId}-${i}@example.test`, role: 'MEMBER' },
    }),
  );
  t.deepEqual(
    invited.map((r) => r.status),
    Array(100).fill(201),
  );
  const email = `one-too-many-${scene.orgId}@example.test`;
  isRateLimited(
    t,
    await call('POST', path, { token: scene.users.owner.apiKey, body: { email, role: 'MEMBER' } }),
    /^Too many invitations sent\. Try again in \d+ minutes\.$/,
  );
  t.falsy(await knex('memberships').whereRaw('lower(invited_email) = lower(?)', [email]).first());
  // An invitation by id sends mail too, and counts the same.
  const team = await call('POST', '/v2/teams', {
    token: scene.users.owner.apiKey,
    body: { name: 'Limited' },
  });
  isRateLimited(
    t,
    await call('POST', `/v2/teams/${team.body.data.id}/memberships`, {
      token: scene.users.owner.apiKey,
      body: { userId: scene.users.colleague.id, role: 'MEMBER' },
    }),
    /^Too many invitations sent\./,
  );
  // Adding an accepted member of the organization to its team is no invitation and is not limited.
  t.is(
    (
      await call('POST', `/v2/organizations/${scene.orgId}/teams/${scene.teamId}/memberships`, {
        token: scene.users.owner.apiKey,
        body: { userId: scene.users.colleague.id, role: 'MEMBER' },
      })
    ).status,
    201,
  );
});

test('the OpenAPI document shows each limit and the 429 answer', async (t) => {
  const document = (await call('GET', '/v2/openapi.json')).body as unknown as {
    paths: Record<string, Record<string, { 'x-rate-limit': unknown; responses: Record<string, unknown> }>>;
  };
  const createKey = document.paths['/api-keys']!.post!;
  t.deepEqual(createKey['x-rate-limit'], { name: 'api-keys', max: 50, windowSeconds: 3600 });
  t.truthy(createKey.responses['429']);
  // What the 429 description promises is what answers carry (see the bookings test above).
  const described = (createKey.responses['429'] as { description: string }).description;
  t.regex(described, /every counted answer carries `RateLimit-Limit`/);
  t.regex(described, /401 and 400 answers neither count nor carry them/);
  const listKeys = document.paths['/api-keys']!.get!;
  t.is(listKeys['x-rate-limit'], null);
  t.falsy(listKeys.responses['429']);
});
