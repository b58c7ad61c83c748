import {
  createApiKey,
  findActiveApiKeyByHash,
  listApiKeys,
  revokeApiKey,
  touchLastUsed,
} from '@sched/db/queries/api-keys';
import { createUser } from '@sched/db/queries/users';
import { sha256Hex } from '@sched/kit/secrets';
import test from 'ava';
import { setUpTestDatabase } from '../support/database.ts';

const database = setUpTestDatabase(test);
const knex = () => database.db.knex;
/** These tests have no token store: the writes' version bumps go nowhere. */
const versions = { bumpVersion: async () => 0 };

let sequence = 0;
const newUser = () => createUser(knex(), { email: `keys${++sequence}@example.com` });

test('createApiKey returns the plain key once and stores only its SHA-256', async (t) => {
  const user = await newUser();
  const key = await createApiKey(knex(), user.id);
  t.regex(key.plain, /^svc_[A-Za-z0-9_-]{43}$/);
  t.is(key.hint, key.plain.slice(-4));
  t.is(key.lastUsedAt, null);
  const rows = await knex()('api_keys').where({ user_id: user.id }).select('*');
  t.is(rows.length, 1);
  t.is(rows[0].key_hash, sha256Hex(key.plain));
  t.false(JSON.stringify(rows).includes(key.plain));
});

test('findActiveApiKeyByHash returns the owner until the key is revoked', async (t) => {
  const user = await newUser();
  const key = await createApiKey(knex(), user.id);
  const found = await findActiveApiKeyByHash(knex(), sha256Hex(key.plain));
  t.is(found?.apiKeyId, key.id);
  t.is(found?.user.id, user.id);
  t.is(found?.user.email, user.email);
  t.false('password_hash' in (found?.user ?? {}));
  t.is(await findActiveApiKeyByHash(knex(), sha256Hex('svc_unknown')), null);

  t.true(await revokeApiKey(knex(), versions, user.id, key.id));
  t.is(await findActiveApiKeyByHash(knex(), sha256Hex(key.plain)), null, 'revocation is immediate');
  t.false(await revokeApiKey(knex(), versions, user.id, key.id), 'already revoked');
});

test('listApiKeys shows id, hint and dates of unrevoked keys, newest first', async (t) => {
  const user = await newUser();
  const first = await createApiKey(knex(), user.id);
  const second = await createApiKey(knex(), user.id);
  const third = await createApiKey(knex(), user.id);
  await revokeApiKey(knex(), versions, user.id, second.id);
  const listed = await listApiKeys(knex(), user.id);
  t.deepEqual(
    listed.map((key) => key.id),
    [third.id, first.id],
  );
  t.deepEqual(Object.keys(listed[0]!).sort(), ['createdAt', 'hint', 'id', 'lastUsedAt']);
  t.is(listed[1]!.hint, first.hint);
  t.deepEqual(await listApiKeys(knex(), (await newUser()).id), []);
});

test("a user cannot revoke another user's key", async (t) => {
  const owner = await newUser();
  const intruder = await newUser();
  const key = await createApiKey(knex(), owner.id);
  t.false(await revokeApiKey(knex(), versions, intruder.id, key.id));
  t.truthy(await findActiveApiKeyByHash(knex(), sha256Hex(key.plain)));
  t.false(await revokeApiKey(knex(), versions, owner.id, Number.NaN));
});

test('touchLastUsed records a use, at most once per interval', async (t) => {
  const user = await newUser();
  const key = await createApiKey(knex(), user.id);
  await touchLastUsed(knex(), key.id);
  const firstUse = (await listApiKeys(knex(), user.id))[0]!.lastUsedAt;
  t.true(firstUse instanceof Date);
  await touchLastUsed(knex(), key.id);
  t.deepEqual((await listApiKeys(knex(), user.id))[0]!.lastUsedAt, firstUse, 'within the interval: no write');

  await knex()('api_keys')
    .where({ id: key.id })
    .update({ last_used_at: new Date('2020-01-01T00:00:00Z') });
  await touchLastUsed(knex(), key.id);
  const later = (await listApiKeys(knex(), user.id))[0]!.lastUsedAt;
  t.true(later!.getTime() > new Date('2020-01-01T00:00:00Z').getTime());
});

test('keys go when their user goes', async (t) => {
  const user = await newUser();
  const key = await createApiKey(knex(), user.id);
  await knex()('users').where({ id: user.id }).delete();
  t.is(await findActiveApiKeyByHash(knex(), sha256Hex(key.plain)), null);
});
