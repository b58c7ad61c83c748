// The /v2/calendars API without a calendar server: scopes over OAuth tokens and API keys, input
// validation, the one-destination rule, other users' connections, the address rule for CalDAV URLs,
// and the OpenAPI document naming the routes.
import { CredentialsBox } from '@sched/calendars/credentials-box';
import { saveCalendarConnection } from '@sched/db/queries/calendar-connections';
import test from 'ava';
import { insertUser, type TestUser } from '../support/factories.ts';
import { apiClient } from '../support/http.ts';
import { setUpTestSystem } from '../support/system.ts';
import { createTestAccessToken } from '../support/tokens.ts';

// Default OUTBOUND_PRIVATE_NETWORKS (deny): loopback and http CalDAV URLs are refused.
const system = setUpTestSystem(test);
const call = apiClient(() => system.url);
const knex = () => system.stores.db.knex;

let owner: TestUser;
let other: TestUser;
let connections: Array<{ id: number; calendars: number[] }> = [];

/** A connection saved straight through the data layer (no server needed for these tests). */
async function connect(user: TestUser, account: string, names: string[]) {
  const box = new CredentialsBox(system.config.encryptionKey);
  const saved = await saveCalendarConnection(knex(), {
    userId: user.id,
    provider: 'caldav',
    account,
    credentialsSealed: box.seal({ serverUrl: 'https://dav.example.com/', username: account, password: 'pw' }),
    calendars: names.map((name, index) => ({
      externalId: `https://dav.example.com/${account}/${name}/`,
      name,
      readOnly: name === 'Holidays',
      primary: index === 0,
    })),
  });
  return { id: saved.id, calendars: saved.calendars.map((calendar) => calendar.id) };
}

test.serial.before(async () => {
  owner = await insertUser(knex());
  other = await insertUser(knex());
  connections = [
    await connect(owner, 'first', ['Work', 'Holidays']),
    await connect(owner, 'second', ['Home']),
  ];
  await connect(other, 'theirs', ['Theirs']);
});

const token = (scopes: string[]) => createTestAccessToken(system.stores, { userId: owner.id, scopes });

test.serial(
  'GET /v2/calendars: APPS_READ over OAuth, API keys too; the first writable calendar of the first account is the destination',
  async (t) => {
    const refused = await call('GET', '/v2/calendars', { token: await token(['BOOKING_READ']) });
    t.is(refused.status, 403);
    t.regex(refused.body.error.message, /^insufficient_scope: .*Required: APPS_READ/);
    const allowed = await call('GET', '/v2/calendars', { token: await token(['APPS_READ']) });
    t.is(allowed.status, 200);
    const byKey = await call('GET', '/v2/calendars', { token: owner.apiKey });
    t.deepEqual(byKey.body.data, allowed.body.data);
    t.is(allowed.body.data.length, 2);
    const [first, second] = allowed.body.data;
    t.deepEqual(
      first.calendars.map((c: { name: string; readOnly: boolean; isDestination: boolean }) => [
        c.name,
        c.readOnly,
        c.isDestination,
      ]),
      [
        ['Work', false, true],
        ['Holidays', true, false],
      ],
    );
    t.false(second.calendars[0].isDestination);
    t.false(JSON.stringify(allowed.body).includes('"pw"'));
    t.false(JSON.stringify(allowed.body).includes('credentials'));
    const none = await call('GET', '/v2/calendars');
    t.is(none.status, 401);
  },
);

test.serial(
  'PATCH: APPS_WRITE; one destination across all connections; read-only calendars cannot be it',
  async (t) => {
    const [first, second] = connections;
    const readOnly = await call('PATCH', `/v2/calendars/${first!.id}`, {
      token: await token(['APPS_READ']),
      body: { calendars: [{ id: second!.calendars[0], isDestination: true }] },
    });
    t.is(readOnly.status, 403);

    const moved = await call('PATCH', `/v2/calendars/${second!.id}`, {
      token: await token(['APPS_WRITE']),
      body: { calendars: [{ id: second!.calendars[0], isDestination: true, checkForConflicts: false }] },
    });
    t.is(moved.status, 200);
    t.like(moved.body.data.calendars[0], { isDestination: true, checkForConflicts: false });
    const all = (await call('GET', '/v2/calendars', { token: owner.apiKey })).body.data;
    const destinations = all.flatMap((c: { calendars: Array<{ isDestination: boolean }> }) =>
      c.calendars.filter((calendar) => calendar.isDestination),
    );
    t.is(destinations.length, 1, 'the first connection lost its destination');

    const holidays = await call('PATCH', `/v2/calendars/${first!.id}`, {
      token: owner.apiKey,
      body: { calendars: [{ id: first!.calendars[1], isDestination: true }] },
    });
    t.is(holidays.status, 400);
    t.is(holidays.body.error.message, 'A read-only calendar cannot be the destination');

    const two = await call('PATCH', `/v2/calendars/${first!.id}`, {
      token: owner.apiKey,
      body: {
        calendars: [
          { id: first!.calendars[0], isDestination: true },
          { id: first!.calendars[1], isDestination: true },
        ],
      },
    });
    t.is(two.status, 400);

    const foreign = await call('PATCH', `/v2/calendars/${first!.id}`, {
      token: owner.apiKey,
      body: { calendars: [{ id: second!.calendars[0], checkForConflicts: true }] },
    });
    t.is(foreign.status, 404, 'a calendar of another connection');
  },
);

test('validation: unknown fields, bad ids and bad URLs are 400 in the error shape', async (t) => {
  const cases: Array<[string, string, unknown]> = [
    [
      'POST',
      '/v2/calendars/caldav',
      { serverUrl: 'https://dav.example.com', username: 'a', password: 'b', extra: 1 },
    ],
    ['POST', '/v2/calendars/caldav', { serverUrl: 'ftp://dav.example.com', username: 'a', password: 'b' }],
    [
      'POST',
      '/v2/calendars/caldav',
      { serverUrl: 'https://u:p@dav.example.com', username: 'a', password: 'b' },
    ],
    ['POST', '/v2/calendars/caldav', { serverUrl: 'https://dav.example.com', username: '', password: 'b' }],
    ['PATCH', `/v2/calendars/${connections[0]!.id}`, { calendars: [] }],
    ['PATCH', '/v2/calendars/abc', { calendars: [{ id: 1 }] }],
  ];
  for (const [method, path, body] of cases) {
    const response = await call(method, path, { token: owner.apiKey, body });
    t.is(response.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
    t.is(response.body.error.code, 'BadRequest');
  }
  const range = await call('GET', '/v2/calendars/busy-times?start=2031-01-10&end=2031-01-01', {
    token: owner.apiKey,
  });
  t.is(range.status, 400);
  const missing = await call('GET', '/v2/calendars/busy-times?start=2031-01-10', { token: owner.apiKey });
  t.is(missing.status, 400);
});

test('a CalDAV URL on loopback, a private network or plain http is refused, and nothing is saved', async (t) => {
  for (const serverUrl of [
    'http://127.0.0.1:1/',
    'https://127.0.0.1/',
    'https://10.0.0.1/',
    'https://[::1]/',
    'https://169.254.169.254/',
  ]) {
    const response = await call('POST', '/v2/calendars/caldav', {
      token: owner.apiKey,
      body: { serverUrl, username: 'a', password: 'b' },
    });
    t.is(response.status, 400, serverUrl);
    t.regex(response.body.error.message, /not allowed/, serverUrl);
  }
  t.is((await call('GET', '/v2/calendars', { token: other.apiKey })).body.data.length, 1);
});

test('busy-times needs APPS_READ and reads only the caller’s calendars', async (t) => {
  const refused = await call('GET', '/v2/calendars/busy-times?start=2031-01-01&end=2031-01-02', {
    token: await token(['BOOKING_READ']),
  });
  t.is(refused.status, 403);
});

test.serial(
  'DELETE: APPS_WRITE; another user’s connection is 404; the owner’s goes with its credentials',
  async (t) => {
    const theirs = (await call('GET', '/v2/calendars', { token: other.apiKey })).body.data[0].id;
    t.is((await call('DELETE', `/v2/calendars/${theirs}`, { token: owner.apiKey })).status, 404);
    t.is(
      (await call('DELETE', `/v2/calendars/${connections[1]!.id}`, { token: await token(['APPS_READ']) }))
        .status,
      403,
    );
    t.is(
      (await call('DELETE', `/v2/calendars/${connections[1]!.id}`, { token: await token(['APPS_WRITE']) }))
        .status,
      204,
    );
    const left = (await knex()('calendar_connections')
      .where({ user_id: owner.id })
      .select('id')) as unknown[];
    t.is(left.length, 1);
  },
);

test('the OpenAPI document declares the calendar routes with their scopes', async (t) => {
  const document = (await call('GET', '/v2/openapi.json')).body;
  for (const [path, method] of [
    ['/v2/calendars', 'get'],
    ['/v2/calendars/caldav', 'post'],
    ['/v2/calendars/{connectionId}', 'patch'],
    ['/v2/calendars/{connectionId}', 'delete'],
    ['/v2/calendars/busy-times', 'get'],
  ] as const) {
    // The document's paths are relative to its server (…/v2) or absolute, depending on the generator.
    const operation = document.paths[path]?.[method] ?? document.paths[path.slice(3)]?.[method];
    t.truthy(operation, `${method} ${path}`);
    t.regex(JSON.stringify(operation), method === 'get' ? /APPS_READ/ : /APPS_WRITE/, `${method} ${path}`);
  }
});

test('deleting the account deletes its calendar connections and their stored credentials', async (t) => {
  const leaving = await insertUser(knex());
  const { id } = await connect(leaving, 'leaving', ['Work']);
  t.is((await call('DELETE', '/v2/me', { token: leaving.apiKey })).status, 204);
  t.is(((await knex()('calendar_connections').where({ id })) as unknown[]).length, 0);
  t.is(((await knex()('connected_calendars').where({ connection_id: id })) as unknown[]).length, 0);
});

test('a connection whose credentials cannot be used any more can still be deleted, credentials and all', async (t) => {
  const user = await insertUser(knex());
  // Sealed under another ENCRYPTION_KEY (the operator changed it): unreadable here.
  const unreadable = await connect(user, 'old-key', ['Work']);
  await knex()('calendar_connections')
    .where({ id: unreadable.id })
    .update({
      credentials_sealed: new CredentialsBox('another-encryption-key-0123456789abcdef').seal({
        serverUrl: 'https://dav.example.com/',
        username: 'old-key',
        password: 'pw',
      }),
    });
  // Google, no longer configured on this deployment.
  const box = new CredentialsBox(system.config.encryptionKey);
  const google = await saveCalendarConnection(knex(), {
    userId: user.id,
    provider: 'google',
    account: 'ada@example.com',
    credentialsSealed: box.seal({
      accessToken: 'ya29.x',
      refreshToken: '1//x',
      expiresAt: new Date().toISOString(),
    }),
    calendars: [{ externalId: 'ada@example.com', name: 'ada@example.com', readOnly: false, primary: true }],
  });
  for (const id of [unreadable.id, google.id]) {
    t.is((await call('DELETE', `/v2/calendars/${id}`, { token: user.apiKey })).status, 204);
    t.is(((await knex()('calendar_connections').where({ id })) as unknown[]).length, 0);
  }
});

test('credentials that no longer open (ENCRYPTION_KEY changed) ask the user to reconnect', async (t) => {
  const user = await insertUser(knex());
  const { id } = await connect(user, 'sealed-elsewhere', ['Work']);
  await knex()('calendar_connections')
    .where({ id })
    .update({
      credentials_sealed: new CredentialsBox('another-encryption-key-0123456789abcdef').seal({
        serverUrl: 'https://dav.example.com/',
        username: 'sealed-elsewhere',
        password: 'pw',
      }),
    });
  const busy = await call('GET', '/v2/calendars/busy-times?start=2031-01-06&end=2031-01-06', {
    token: user.apiKey,
  });
  t.is(busy.status, 200);
  const [connection] = (await call('GET', '/v2/calendars', { token: user.apiKey })).body.data;
  t.is(connection.status, 'needs_reauth');
});

test('choosing destinations at the same time: every request answers, one destination stays', async (t) => {
  const user = await insertUser(knex());
  const first = await connect(user, 'race-a', ['A1', 'A2', 'A3']);
  const second = await connect(user, 'race-b', ['B1', 'B2', 'B3']);
  const choices = [
    ...first.calendars.map((id) => [first.id, id] as const),
    ...second.calendars.map((id) => [second.id, id] as const),
  ];
  const answers = await Promise.all(
    [...choices, ...choices].map(([connectionId, id]) =>
      call('PATCH', `/v2/calendars/${connectionId}`, {
        token: user.apiKey,
        body: { calendars: [{ id, isDestination: true }] },
      }),
    ),
  );
  t.deepEqual(
    answers.map((answer) => answer.status),
    answers.map(() => 200),
  );
  const all = (await call('GET', '/v2/calendars', { token: user.apiKey })).body.data as Array<{
    calendars: Array<{ isDestination: boolean }>;
  }>;
  t.is(all.flatMap((connection) => connection.calendars).filter((c) => c.isDestination).length, 1);
});

test('disconnecting the destination’s account: the default of the accounts left takes over', async (t) => {
  const user = await insertUser(knex());
  const first = await connect(user, 'dest-a', ['A1']);
  const second = await connect(user, 'dest-b', ['Holidays', 'B2', 'B3']);
  const third = await connect(user, 'dest-c', ['C1']);
  const destinations = async () =>
    (
      (await call('GET', '/v2/calendars', { token: user.apiKey })).body.data as Array<{
        calendars: Array<{ id: number; isDestination: boolean }>;
      }>
    )
      .flatMap((connection) => connection.calendars)
      .filter((calendar) => calendar.isDestination)
      .map((calendar) => calendar.id);
  t.deepEqual(await destinations(), [first.calendars[0]]);
  // Another account's going leaves the choice alone.
  t.is((await call('DELETE', `/v2/calendars/${third.id}`, { token: user.apiKey })).status, 204);
  t.deepEqual(await destinations(), [first.calendars[0]]);
  // The oldest account left, its first writable calendar (its primary, Holidays, is read-only).
  t.is((await call('DELETE', `/v2/calendars/${first.id}`, { token: user.apiKey })).status, 204);
  t.deepEqual(await destinations(), [second.calendars[1]]);
});
