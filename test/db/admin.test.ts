import { AdminAccountTakenError } from '@sched/db/errors';
import { ensureServiceAdmin, ensureServiceAdminUser } from '@sched/db/queries/admin';
import { findActiveApiKeyByHash, listApiKeys } from '@sched/db/queries/api-keys';
import { createUser, findUserByEmail, findUserById, verifyUserPassword } from '@sched/db/queries/users';
import { sha256Hex } from '@sched/kit/secrets';
import test from 'ava';
import { setUpTestDatabase } from '../support/database.ts';

const database = setUpTestDatabase(test);
const knex = () => database.db.knex;

test('ensureServiceAdmin creates a verified service administrator with a working key', async (t) => {
  const result = await ensureServiceAdmin(knex(), {
    email: 'Root@Example.com',
    password: 'a long password',
    name: 'Root',
  });
  t.regex(result.apiKey, /^svc_[A-Za-z0-9_-]{43}$/);
  const user = await findUserById(knex(), result.userId);
  t.like(user, { email: 'Root@Example.com', name: 'Root', isServiceAdmin: true, onboardingStep: 'complete' });
  t.true(user!.emailVerifiedAt instanceof Date);
  t.is(typeof user!.defaultScheduleId, 'number');
  t.is((await verifyUserPassword(knex(), 'root@example.com', 'a long password'))?.id, result.userId);
  t.is((await findActiveApiKeyByHash(knex(), sha256Hex(result.apiKey)))?.user.id, result.userId);
});

test('ensureServiceAdmin is idempotent on the e-mail and issues a new key each call; old keys keep working', async (t) => {
  const input = { email: 'ops@example.com', password: 'first password' };
  const first = await ensureServiceAdmin(knex(), input);
  const second = await ensureServiceAdmin(knex(), { ...input, email: 'OPS@example.com' });
  t.is(second.userId, first.userId);
  t.not(second.apiKey, first.apiKey);
  t.is((await findActiveApiKeyByHash(knex(), sha256Hex(first.apiKey)))?.user.id, first.userId);
  t.is((await findActiveApiKeyByHash(knex(), sha256Hex(second.apiKey)))?.user.id, first.userId);
  t.is((await listApiKeys(knex(), first.userId)).length, 2);
  t.is(
    await knex()('users')
      .whereRaw('lower(email) = ?', ['ops@example.com'])
      .count({ n: '*' })
      .first()
      .then((r) => Number(r?.n)),
    1,
  );
  // Another password is refused, not written: the account and its keys stay as they were.
  await t.throwsAsync(ensureServiceAdmin(knex(), { ...input, password: 'other password' }), {
    instanceOf: AdminAccountTakenError,
  });
  t.truthy(await verifyUserPassword(knex(), 'ops@example.com', 'first password'));
  t.is(await verifyUserPassword(knex(), 'ops@example.com', 'other password'), null);
  t.is((await listApiKeys(knex(), first.userId)).length, 2);
});

test('an existing user without a password is promoted; missing password and name are filled in', async (t) => {
  const plain = await createUser(knex(), { email: 'invited@example.com' });
  t.false(plain.isServiceAdmin);
  const result = await ensureServiceAdminUser(knex(), {
    email: 'invited@example.com',
    password: 'set now please',
    name: 'Inv',
  });
  t.deepEqual(result, { userId: plain.id, created: false });
  t.like(await findUserById(knex(), plain.id), { isServiceAdmin: true, name: 'Inv' });
  t.truthy(await verifyUserPassword(knex(), 'invited@example.com', 'set now please'));

  const named = await createUser(knex(), {
    email: 'named@example.com',
    name: 'Keep',
    password: 'own password',
  });
  await ensureServiceAdminUser(knex(), {
    email: 'named@example.com',
    password: 'own password',
    name: 'Other',
  });
  t.like(await findUserById(knex(), named.id), { isServiceAdmin: true, name: 'Keep' });
  t.truthy(await verifyUserPassword(knex(), 'named@example.com', 'own password'));
});

test('an account someone registered with the address, with another password, is never made an administrator', async (t) => {
  // A public sign-up: unverified, the registrant's own password.
  const squatter = await createUser(knex(), { email: 'boss@example.com', password: 'the squatter password' });
  const error = await t.throwsAsync(
    ensureServiceAdminUser(knex(), { email: 'BOSS@example.com', password: 'the operator password' }),
    { instanceOf: AdminAccountTakenError },
  );
  t.regex(error!.message, /reset-password --email BOSS@example.com/);
  t.like(await findUserById(knex(), squatter.id), { isServiceAdmin: false, emailVerifiedAt: null });
  t.truthy(await verifyUserPassword(knex(), 'boss@example.com', 'the squatter password'));
  t.is(await verifyUserPassword(knex(), 'boss@example.com', 'the operator password'), null);
});

test('an unverified account that proves the password is promoted and its address counts as verified', async (t) => {
  const own = await createUser(knex(), { email: 'self@example.com', password: 'the same password' });
  t.is(own.emailVerifiedAt, null);
  await ensureServiceAdminUser(knex(), { email: 'self@example.com', password: 'the same password' });
  const after = await findUserById(knex(), own.id);
  t.true(after!.isServiceAdmin);
  t.true(after!.emailVerifiedAt instanceof Date);
});

test('concurrent calls for one e-mail end with one user', async (t) => {
  const input = { email: 'race@example.com', password: 'a long password' };
  const results = await Promise.all([1, 2, 3, 4].map(() => ensureServiceAdmin(knex(), input)));
  const ids = new Set(results.map((result) => result.userId));
  t.is(ids.size, 1);
  t.is(new Set(results.map((result) => result.apiKey)).size, 4);
  t.is((await findUserByEmail(knex(), input.email))?.id, [...ids][0]);
  t.is((await listApiKeys(knex(), [...ids][0]!)).length, 4);
});
