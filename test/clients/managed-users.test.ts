import test from 'ava';
import type { Json } from '../support/http.ts';
import { createClient, setUpClientsWorld } from './helpers.ts';

// The deprecated managed-user family: x-svc-secret-key against the client's active secrets,
// GetManagedUserOutput with exactly its fields (docs/oauth-clients.md "Managed users"), Deprecation
// and Sunset headers.

const LOCALES = new Set(
  'ar ca de es eu he id ja lv pl ro sr th vi az cs el es-419 fi hr it km nl pt ru sv tr zh-CN bg da en et fr hu iw ko no pt-BR sk ta uk zh-TW bn'.split(
    ' ',
  ),
);

const { world, owner } = setUpClientsWorld(test);
let client: { id: string; secret: string };
let otherClient: { id: string; secret: string };

test.before(async () => {
  client = await createClient(world, owner);
  otherClient = await createClient(world, owner);
});

const as = (c: { id: string; secret: string }, method: string, path: string, body?: unknown) =>
  world.call(method, `/v2/oauth-clients/${c.id}/users${path}`, {
    headers: { 'x-svc-secret-key': c.secret },
    ...(body === undefined ? {} : { body }),
  });

function assertManagedUser(t: import('ava').ExecutionContext, user: Record<string, unknown>) {
  const required = [
    'id',
    'email',
    'username',
    'name',
    'bio',
    'timeZone',
    'weekStart',
    'createdDate',
    'timeFormat',
    'defaultScheduleId',
  ];
  for (const field of required) t.true(field in user, `required field ${field}`);
  t.is(typeof user['id'], 'number');
  t.is(typeof user['email'], 'string');
  t.is(typeof user['timeZone'], 'string');
  t.is(typeof user['weekStart'], 'string');
  t.false(Number.isNaN(Date.parse(user['createdDate'] as string)));
  for (const nullable of ['username', 'name', 'bio', 'timeFormat', 'defaultScheduleId']) {
    const value = user[nullable];
    t.true(
      value === null ||
        typeof value ===
          (nullable === 'timeFormat' || nullable === 'defaultScheduleId' ? 'number' : 'string'),
      nullable,
    );
  }
  if ('locale' in user) t.true(LOCALES.has(user['locale'] as string));
  if ('avatarUrl' in user) t.true(user['avatarUrl'] === null || typeof user['avatarUrl'] === 'string');
  if ('metadata' in user) t.true(typeof user['metadata'] === 'object' && user['metadata'] !== null);
  const allowed = new Set([...required, 'locale', 'avatarUrl', 'metadata']);
  t.deepEqual(
    Object.keys(user).filter((k) => !allowed.has(k)),
    [],
  );
}

test('create, get, list, patch, delete: GetManagedUserOutput with Deprecation and Sunset headers', async (t) => {
  const created = await as(client, 'POST', '', {
    email: 'alice@example.com',
    name: 'Alice',
    timeZone: 'Europe/Berlin',
    weekStart: 'Sunday',
    locale: 'pt-BR',
    timeFormat: 24,
    metadata: { plan: 'pro' },
  });
  t.is(created.status, 201);
  t.is(created.body.status, 'success');
  assertManagedUser(t, created.body.data);
  t.like(created.body.data, {
    email: 'alice@example.com',
    name: 'Alice',
    timeZone: 'Europe/Berlin',
    weekStart: 'Sunday',
    locale: 'pt-BR',
    timeFormat: 24,
    bio: null,
    avatarUrl: null,
    metadata: { plan: 'pro' },
  });
  t.regex(created.headers.get('deprecation') ?? '', /^@\d+$/);
  t.is(created.headers.get('sunset'), 'Wed, 30 Jun 2027 23:59:59 GMT');
  const id = created.body.data.id as number;

  const got = await as(client, 'GET', `/${id}`);
  t.is(got.status, 200);
  assertManagedUser(t, got.body.data);
  t.truthy(got.headers.get('sunset'));

  const listed = await as(client, 'GET', '');
  t.is(listed.status, 200);
  t.true(listed.body.data.some((u: { id: number }) => u.id === id));
  for (const user of listed.body.data) assertManagedUser(t, user);

  const patched = await as(client, 'PATCH', `/${id}`, { name: null, bio: 'Hi', locale: 'de' });
  t.is(patched.status, 200);
  t.like(patched.body.data, { name: null, bio: 'Hi', locale: 'de' });

  const badLocale = await as(client, 'PATCH', `/${id}`, { locale: 'xx' });
  t.is(badLocale.status, 400);

  const deleted = await as(client, 'DELETE', `/${id}`);
  t.is(deleted.status, 200);
  t.is(deleted.body.status, 'success');
  assertManagedUser(t, deleted.body.data);
  t.is(deleted.body.data.id, id);
  t.truthy(deleted.headers.get('deprecation'));
  t.is((await as(client, 'GET', `/${id}`)).status, 404);
});

test('deletion with a wrong, revoked or missing secret is 401; the user stays', async (t) => {
  let rotating: { id: string; secret: string } = await createClient(world, owner);
  const created = await as(rotating, 'POST', '', { email: 'bob@example.com' });
  const id = created.body.data.id as number;
  const path = `/v2/oauth-clients/${rotating.id}/users/${id}`;

  const missing = await world.call('DELETE', path);
  t.is(missing.status, 401);
  const wrong = await world.call('DELETE', path, { headers: { 'x-svc-secret-key': 'not-the-secret' } });
  t.is(wrong.status, 401);
  const otherSecret = await world.call('DELETE', path, {
    headers: { 'x-svc-secret-key': otherClient.secret },
  });
  t.is(otherSecret.status, 401);

  // Rotate: generate a second secret, revoke the first; the first then fails at once.
  const second = await world.call('POST', `/v2/oauth-clients/${rotating.id}/secrets`, {
    token: owner.apiKey,
  });
  const secrets = (
    await world.call('GET', `/v2/oauth-clients/${rotating.id}/secrets`, { token: owner.apiKey })
  ).body.data;
  await world.call('DELETE', `/v2/oauth-clients/${rotating.id}/secrets/${secrets[0].id}`, {
    token: owner.apiKey,
  });
  const revoked = await world.call('DELETE', path, { headers: { 'x-svc-secret-key': rotating.secret } });
  t.is(revoked.status, 401);

  rotating = { id: rotating.id, secret: second.body.data.secret };
  t.is((await as(rotating, 'GET', `/${id}`)).status, 200);
  t.is((await as(rotating, 'DELETE', `/${id}`)).status, 200);
});

test('a user of another client is 404 (get, patch, delete)', async (t) => {
  const theirs = await as(otherClient, 'POST', '', { email: 'carol@example.com' });
  const id = theirs.body.data.id as number;
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    const response = await as(client, method, `/${id}`, method === 'PATCH' ? { name: 'x' } : undefined);
    t.is(response.status, 404, method);
  }
  t.is((await as(otherClient, 'GET', `/${id}`)).status, 200);
  // A regular user id is not a managed user of anyone.
  t.is((await as(client, 'GET', `/${owner.id}`)).status, 404);
});

/** The one 409 for an e-mail in use: it says "taken" and nothing about whose it is. */
function taken(t: import('ava').ExecutionContext, response: { status: number; body: Json }, what: string) {
  t.is(response.status, 409, `${what}: ${JSON.stringify(response.body)}`);
  t.is(response.body.error.code, 'Conflict', what);
  t.is(response.body.error.message, 'A user with this email already exists', what);
}

test('a managed user cannot take an e-mail another account uses (create): 409; validation is 400', async (t) => {
  t.is((await as(client, 'POST', '', { email: 'dave@example.com' })).status, 201);
  taken(t, await as(client, 'POST', '', { email: 'DAVE@example.com' }), 'same client, other case');
  taken(t, await as(otherClient, 'POST', '', { email: 'dave@example.com' }), "another client's managed user");
  taken(t, await as(otherClient, 'POST', '', { email: 'Dave@Example.COM' }), 'another client, other case');
  taken(t, await as(client, 'POST', '', { email: owner.email }), 'a regular account');
  taken(
    t,
    await as(client, 'POST', '', { email: owner.email.toUpperCase() }),
    'a regular account, other case',
  );
  const invalid = await as(client, 'POST', '', { email: 'nope', timeZone: 'Mars/Olympus', extra: 1 });
  t.is(invalid.status, 400);
  const fields = invalid.body.error.details.map((d: { field: string }) => d.field).sort();
  t.deepEqual(fields, ['body.email', 'body.extra', 'body.timeZone']);
});

test('a managed user cannot take an e-mail another account uses (PATCH): 409', async (t) => {
  const frank = await as(client, 'POST', '', { email: 'frank@example.com' });
  const grace = await as(otherClient, 'POST', '', { email: 'grace@example.com' });
  t.is(frank.status, 201);
  t.is(grace.status, 201);
  const path = `/${frank.body.data.id}`;
  taken(t, await as(client, 'PATCH', path, { email: 'GRACE@example.com' }), "another client's managed user");
  taken(t, await as(client, 'PATCH', path, { email: owner.email }), 'a regular account');
  t.is((await as(client, 'GET', path)).body.data.email, 'frank@example.com', 'unchanged');
  // Its own address in another case, and a free one, are fine.
  const recased = await as(client, 'PATCH', path, { email: 'Frank@Example.com' });
  t.is(recased.status, 200);
  t.is(recased.body.data.email, 'Frank@Example.com');
  const moved = await as(client, 'PATCH', path, { email: 'frank.new@example.com' });
  t.is(moved.status, 200);
  // The address it left is free again.
  t.is((await as(otherClient, 'POST', '', { email: 'frank@example.com' })).status, 201);
});

test('deleting the client deletes its managed users', async (t) => {
  const doomed = await createClient(world, owner);
  const user = await as(doomed, 'POST', '', { email: 'erin@example.com' });
  t.is((await world.call('DELETE', `/v2/oauth-clients/${doomed.id}`, { token: owner.apiKey })).status, 200);
  const row = await world.system.stores.db.knex('users').where({ id: user.body.data.id }).first('id');
  t.is(row, undefined);
});

test('the deprecated DELETE answers its errors in the envelope with the deprecation headers too', async (t) => {
  const created = await as(client, 'POST', '', { email: 'heidi@example.com' });
  const id = created.body.data.id as number;
  const path = (userId: string | number) => `/v2/oauth-clients/${client.id}/users/${userId}`;
  const cases = [
    ['no x-svc-secret-key', path(id), {}, 401, 'Unauthorized', 'The x-svc-secret-key header is required'],
    [
      'a wrong secret',
      path(id),
      { 'x-svc-secret-key': 'wrong' },
      401,
      'Unauthorized',
      'Invalid client secret',
    ],
    [
      'a userId that is not a number',
      path('abc'),
      { 'x-svc-secret-key': client.secret },
      400,
      'BadRequest',
      'Invalid params: params.userId must be a positive integer',
    ],
    [
      'an unknown user',
      path(99_999_999),
      { 'x-svc-secret-key': client.secret },
      404,
      'NotFound',
      'Managed user not found',
    ],
  ] as const;
  for (const [what, url, headers, status, code, message] of cases) {
    const response = await world.call('DELETE', url, { headers });
    t.is(response.status, status, what);
    t.like(response.body, { status: 'error', path: url, error: { code, message } }, what);
    t.is(response.headers.get('deprecation'), '@1767225600', what);
    t.is(response.headers.get('sunset'), 'Wed, 30 Jun 2027 23:59:59 GMT', what);
    t.is(response.headers.get('link'), '</v2/docs>; rel="deprecation"; type="text/html"', what);
  }
  t.is((await as(client, 'GET', `/${id}`)).status, 200, 'still there');
  // Routes that are not deprecated send none.
  const other = await world.call('GET', `/v2/oauth-clients/${client.id}`, { token: owner.apiKey });
  t.is(other.headers.get('deprecation'), null);
  t.is(other.headers.get('sunset'), null);
});

test('every answer on a deprecated path carries the deprecation headers: another method, OPTIONS, a body refused before the route', async (t) => {
  const users = `/v2/oauth-clients/${client.id}/users`;
  const one = `${users}/1`;
  const secret = { 'x-svc-secret-key': client.secret };
  const cases = [
    ['PUT on the list (405)', 'PUT', users, {}, undefined, 405],
    ['POST on one user (405)', 'POST', one, secret, undefined, 405],
    ['OPTIONS (200)', 'OPTIONS', one, {}, undefined, 200],
    ['a method nothing implements (501)', 'PROPFIND', users, {}, undefined, 501],
    ['a body that is not JSON (400)', 'POST', users, secret, '{"email":', 400],
    ['a body of another type (415)', 'POST', users, { ...secret, 'content-type': 'text/plain' }, 'x', 415],
  ] as const;
  for (const [what, method, url, headers, body, status] of cases) {
    const response = await world.call(method, url, { headers, ...(body === undefined ? {} : { body }) });
    t.is(response.status, status, what);
    t.is(response.headers.get('deprecation'), '@1767225600', what);
    t.is(response.headers.get('sunset'), 'Wed, 30 Jun 2027 23:59:59 GMT', what);
    t.is(response.headers.get('link'), '</v2/docs>; rel="deprecation"; type="text/html"', what);
  }
  const notAllowed = await world.call('PUT', users);
  t.like(notAllowed.body, { status: 'error', error: { code: 'MethodNotAllowed' } });
  t.is(notAllowed.headers.get('allow'), 'POST, HEAD, GET');
  // Another method on a path that is not deprecated sends none.
  const other = await world.call('PUT', `/v2/oauth-clients/${client.id}/secrets`, { token: owner.apiKey });
  t.is(other.status, 405);
  t.is(other.headers.get('deprecation'), null);
  t.is(other.headers.get('sunset'), null);
});

test('the OpenAPI document names the 409 message the managed-user routes answer', async (t) => {
  const document = (await world.call('GET', '/v2/openapi.json')).body;
  for (const method of ['post', 'patch']) {
    // Paths are relative to the document's server, {BASE_URL}/v2.
    const path =
      method === 'post' ? '/oauth-clients/{clientId}/users' : '/oauth-clients/{clientId}/users/{userId}';
    const operation = document.paths[path][method];
    t.true(operation.deprecated, `${method} deprecated`);
    t.is(operation.responses['409'].description, 'A user with this email already exists', method);
  }
});
