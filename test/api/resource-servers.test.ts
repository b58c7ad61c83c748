import { createHash } from 'node:crypto';
import test from 'ava';
import { insertUser } from '../support/factories.ts';
import { tokenRequest } from '../support/oauth.ts';
import { createTestAccessToken } from '../support/tokens.ts';
import { setUpWorld } from '../support/world.ts';

/**
 * Resource servers: `POST /v2/admin/resource-servers` -> `{id, secret}` shown once, the secret
 * stored as its SHA-256 only; list without secrets; delete. Service administrators only.
 */

const { system, call, knex, admin, user } = setUpWorld(test);
const PATH = '/v2/admin/resource-servers';

test('an administrator registers one: 201 with id and secret, stored hashed, listed without secret', async (t) => {
  const made = await call('POST', PATH, {
    token: admin.apiKey,
    body: { name: 'Bookings API', description: 'the bookings service' },
  });
  t.is(made.status, 201, JSON.stringify(made.body));
  const { id, secret } = made.body.data;
  t.regex(id, /^rs_[A-Za-z0-9_-]{22}$/);
  t.true(typeof secret === 'string' && secret.length >= 43);
  t.like(made.body.data, { name: 'Bookings API', description: 'the bookings service' });
  t.is(made.body.data.secretHint, `****${secret.slice(-4)}`);

  const row = await knex()('resource_servers').where({ id }).first();
  t.is(row.secret_hash, createHash('sha256').update(secret).digest('hex'));
  t.false(JSON.stringify(row).includes(secret), 'the plain secret is not stored');

  const listed = await call('GET', PATH, { token: admin.apiKey });
  t.is(listed.status, 200);
  const entry = listed.body.data.find((server: { id: string }) => server.id === id);
  t.deepEqual(Object.keys(entry).sort(), ['createdAt', 'description', 'id', 'name', 'secretHint']);
  t.false(JSON.stringify(listed.body).includes(secret), 'the list never shows the secret');

  // The secret works once registered: the resource server can introspect.
  const introspected = await tokenRequest(
    system.url,
    { token: 'unknown' },
    { path: '/v2/auth/oauth2/introspect', basic: { clientId: id, secret } },
  );
  t.is(introspected.status, 200);
  t.deepEqual(introspected.body, { active: false });
});

test('delete: 204, gone from the list, then 404', async (t) => {
  const made = await call('POST', PATH, { token: admin.apiKey, body: { name: 'Short-lived' } });
  t.is(made.status, 201);
  t.is(made.body.data.description, null);
  const id = made.body.data.id as string;
  const deleted = await call('DELETE', `${PATH}/${id}`, { token: admin.apiKey });
  t.is(deleted.status, 204);
  const listed = await call('GET', PATH, { token: admin.apiKey });
  t.false(listed.body.data.some((server: { id: string }) => server.id === id));
  const again = await call('DELETE', `${PATH}/${id}`, { token: admin.apiKey });
  t.is(again.status, 404);
  t.is(again.body.error.code, 'NotFound');
  t.is((await call('DELETE', `${PATH}/not-an-id`, { token: admin.apiKey })).status, 404);
});

test('input is validated: name required, unknown fields refused', async (t) => {
  for (const body of [{}, { name: '' }, { name: 'x', secret: 'mine' }, { name: 'x', description: 5 }]) {
    const response = await call('POST', PATH, { token: admin.apiKey, body });
    t.is(response.status, 400, JSON.stringify(body));
    t.is(response.body.error.code, 'BadRequest');
  }
});

test('service administrators only: 403 for other users and for OAuth tokens, 401 without credentials', async (t) => {
  const existing = await call('POST', PATH, { token: admin.apiKey, body: { name: 'Kept' } });
  const someone = await insertUser(knex());
  const adminOAuth = await createTestAccessToken(system.stores, {
    userId: admin.id,
    scopes: ['PROFILE_READ'],
  });
  const legacyOAuth = await createTestAccessToken(system.stores, { userId: admin.id, legacy: true });
  for (const token of [user.apiKey, someone.apiKey, adminOAuth, legacyOAuth]) {
    for (const [method, path, body] of [
      ['POST', PATH, { name: 'Nope' }],
      ['GET', PATH, undefined],
      ['DELETE', `${PATH}/${existing.body.data.id}`, undefined],
    ] as const) {
      const response = await call(method, path, { token, body });
      t.is(response.status, 403, `${method} ${path}`);
      t.is(response.body.error.code, 'Forbidden');
    }
  }
  const anonymous = await call('GET', PATH);
  t.is(anonymous.status, 401);
  const still = await call('GET', PATH, { token: admin.apiKey });
  t.true(still.body.data.some((server: { id: string }) => server.id === existing.body.data.id));
});
