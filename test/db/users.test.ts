import {
  createUser,
  findUserByEmail,
  findUserById,
  findUserByUsername,
  setServiceAdmin,
  setUserPassword,
  updateUser,
  userHasPassword,
  verifyUserPassword,
} from '@sched/db/queries/users';
import { DuplicateRecordError } from '@sched/db/errors';
import { verifyPassword } from '@sched/kit/passwords';
import test from 'ava';
import { setUpTestDatabase } from '../support/database.ts';

const database = setUpTestDatabase(test);
const knex = () => database.db.knex;
/** These tests have no token store: the writes' version bumps go nowhere. */
const versions = { bumpVersion: async () => 0 };

let sequence = 0;
const email = (name = 'user') => `${name}${++sequence}@Example.com`;

test('createUser stores a hashed password and returns no credential fields', async (t) => {
  const address = email('Ada');
  const user = await createUser(knex(), { email: address, password: 'a long password', name: 'Ada' });
  t.like(user, {
    email: address,
    name: 'Ada',
    username: null,
    timeZone: 'UTC',
    weekStart: 'Monday',
    locale: 'en',
    timeFormat: null,
    metadata: {},
    isServiceAdmin: false,
    onboardingStep: 'profile',
    emailVerifiedAt: null,
    managedByClientId: null,
  });
  t.is(typeof user.id, 'number');
  t.true(user.createdAt instanceof Date);
  t.false('passwordHash' in user);
  t.false('password_hash' in user);
  const { password_hash } = await knex()('users').where({ id: user.id }).first('password_hash');
  t.regex(password_hash, /^\$scrypt\$/);
  t.true(await verifyPassword('a long password', password_hash));
  t.true(await userHasPassword(knex(), user.id));
});

test('createUser gives every user a default schedule, Monday to Friday 09:00-17:00 in their zone', async (t) => {
  const user = await createUser(knex(), {
    email: email(),
    timeZone: 'America/New_York',
    weekStart: 'Sunday',
  });
  t.is(typeof user.defaultScheduleId, 'number');
  const schedule = await knex()('schedules').where({ id: user.defaultScheduleId! }).first();
  t.like(schedule, { user_id: user.id, time_zone: 'America/New_York', name: 'Working hours' });
  const availability = await knex()('schedule_availability')
    .where({ schedule_id: user.defaultScheduleId! })
    .orderBy('weekday')
    .select('weekday', 'start_time', 'end_time');
  t.deepEqual(
    availability,
    [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '17:00:00' })),
  );
  t.false(await userHasPassword(knex(), user.id));
});

test('createUser is all or nothing', async (t) => {
  // Make the schedule insert (after the user insert) fail, for one time zone only.
  await knex().raw(`
    create function test_refuse_schedule() returns trigger language plpgsql as $$
    begin raise exception 'schedule refused'; end $$`);
  await knex().raw(
    "create trigger test_refuse_schedule before insert on schedules for each row when (new.time_zone = 'Test/Refuse') execute function test_refuse_schedule()",
  );
  try {
    const address = email('broken');
    await t.throwsAsync(createUser(knex(), { email: address, timeZone: 'Test/Refuse' }), {
      message: /schedule refused/,
    });
    t.is(await findUserByEmail(knex(), address), null, 'the user insert was rolled back too');
  } finally {
    await knex().raw('drop trigger test_refuse_schedule on schedules');
    await knex().raw('drop function test_refuse_schedule()');
  }
});

test('createUser inside a caller transaction rolls back with it', async (t) => {
  const address = email('tx');
  await t.throwsAsync(
    knex().transaction(async (trx) => {
      await createUser(trx, { email: address });
      t.truthy(await findUserByEmail(trx, address));
      throw new Error('abort');
    }),
    { message: 'abort' },
  );
  t.is(await findUserByEmail(knex(), address), null);
});

test('e-mail and username are unique ignoring case: DuplicateRecordError naming the field', async (t) => {
  const address = email('Dup');
  const username = `Dup${sequence}`;
  await createUser(knex(), { email: address, username });
  const byEmail = await t.throwsAsync(createUser(knex(), { email: address.toUpperCase() }), {
    instanceOf: DuplicateRecordError,
  });
  t.like(byEmail, { kind: 'user', field: 'email' });
  const byUsername = await t.throwsAsync(
    createUser(knex(), { email: email(), username: username.toUpperCase() }),
    { instanceOf: DuplicateRecordError },
  );
  t.like(byUsername, { kind: 'user', field: 'username' });
});

test('findUserByEmail ignores case and surrounding spaces; finders return null when absent', async (t) => {
  const address = email('Grace');
  const username = `Grace${sequence}`;
  const user = await createUser(knex(), { email: address, username });
  t.is((await findUserByEmail(knex(), address.toLowerCase()))?.id, user.id);
  t.is((await findUserByEmail(knex(), ` ${address.toUpperCase()} `))?.id, user.id);
  t.is((await findUserByUsername(knex(), username.toLowerCase()))?.id, user.id);
  t.is((await findUserById(knex(), user.id))?.email, address);
  t.is(await findUserByEmail(knex(), 'nobody@example.com'), null);
  t.is(await findUserById(knex(), 987654321), null);
  t.is(await findUserById(knex(), Number.NaN), null);
});

test('managed users are invisible to findUserByEmail and sign-in', async (t) => {
  const ownerEmail = email('owner');
  const clientId = `client${sequence}abcdefghijkl`;
  const owner = await createUser(knex(), { email: ownerEmail });
  await knex()('oauth_clients').insert({ id: clientId, owner_user_id: owner.id, name: 'App' });
  const address = email('managed');
  const managed = await createUser(knex(), {
    email: address,
    managedByClientId: clientId,
    password: 'pw-of-managed',
  });
  t.is(managed.managedByClientId, clientId);
  t.is(await findUserByEmail(knex(), address), null);
  t.is(await verifyUserPassword(knex(), address, 'pw-of-managed'), null);
  const regular = await createUser(knex(), { email: address });
  t.not(regular.id, managed.id);
});

test('verifyUserPassword signs in by e-mail and password', async (t) => {
  const address = email('sign');
  const user = await createUser(knex(), { email: address, password: 'right password' });
  t.is((await verifyUserPassword(knex(), address.toUpperCase(), 'right password'))?.id, user.id);
  t.is(await verifyUserPassword(knex(), address, 'wrong password'), null);
  t.is(await verifyUserPassword(knex(), 'unknown@example.com', 'right password'), null);
  const passwordless = await createUser(knex(), { email: email('nopw') });
  t.is(await verifyUserPassword(knex(), passwordless.email, ''), null);

  // Every password write moves the credential epoch on (sessions of the old password stop counting).
  t.is(
    (await setUserPassword(knex(), user.id, 'changed password'))?.credentialEpoch,
    user.credentialEpoch + 1,
  );
  t.is(await verifyUserPassword(knex(), address, 'right password'), null);
  t.is((await verifyUserPassword(knex(), address, 'changed password'))?.id, user.id);
  t.is(await setUserPassword(knex(), 987654321, 'x'), null);
});

test('updateUser changes only the given fields; null clears; conflicts are 409', async (t) => {
  const address = email('upd');
  const username = `upd${sequence}`;
  const user = await createUser(knex(), { email: address, name: 'Old', bio: 'hello', timeFormat: 12 });
  const updated = await updateUser(knex(), versions, user.id, {
    name: 'New',
    timeZone: 'Europe/Berlin',
    weekStart: 'Sunday',
    locale: 'pt-BR',
    timeFormat: 24,
    bio: null,
    metadata: { plan: 'pro', seats: 3 },
    onboardingStep: 'complete',
    calendarProvider: 'google',
    username,
  });
  t.like(updated, {
    id: user.id,
    email: user.email,
    name: 'New',
    timeZone: 'Europe/Berlin',
    weekStart: 'Sunday',
    locale: 'pt-BR',
    timeFormat: 24,
    bio: null,
    metadata: { plan: 'pro', seats: 3 },
    onboardingStep: 'complete',
    calendarProvider: 'google',
    defaultScheduleId: user.defaultScheduleId,
  });
  t.true(updated!.updatedAt.getTime() >= user.updatedAt.getTime());
  t.deepEqual(await updateUser(knex(), versions, user.id, {}), updated);
  t.is(await updateUser(knex(), versions, 987654321, { name: 'x' }), null);

  const other = await createUser(knex(), { email: email('other') });
  await t.throwsAsync(updateUser(knex(), versions, other.id, { email: user.email.toUpperCase() }), {
    instanceOf: DuplicateRecordError,
  });
  await t.throwsAsync(updateUser(knex(), versions, other.id, { username: username.toUpperCase() }), {
    instanceOf: DuplicateRecordError,
  });
  // A default schedule must be the user's own.
  await t.throwsAsync(updateUser(knex(), versions, other.id, { defaultScheduleId: user.defaultScheduleId }));
});

test('setServiceAdmin grants and withdraws', async (t) => {
  const user = await createUser(knex(), { email: email('adm') });
  t.true(await setServiceAdmin(knex(), versions, user.id));
  t.true((await findUserById(knex(), user.id))?.isServiceAdmin);
  t.true(await setServiceAdmin(knex(), versions, user.id, false));
  t.false((await findUserById(knex(), user.id))?.isServiceAdmin);
  t.false(await setServiceAdmin(knex(), versions, 987654321));
});
