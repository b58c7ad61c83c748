import { addRolePermissions, createRole, deleteRole, removeRolePermissions } from '@sched/db/queries/roles';
import { deleteOrganizationMembership, updateMembership } from '@sched/db/queries/membership-changes';
import { createMembership } from '@sched/db/queries/memberships';
import { saveOnboardingCalendar, saveOnboardingProfile } from '@sched/db/queries/onboarding';
import { createOrganization, updateOrganization } from '@sched/db/queries/organizations';
import { createTeam } from '@sched/db/queries/teams';
import { setServiceAdmin, updateUser } from '@sched/db/queries/users';
import { revokeApiKey } from '@sched/db/queries/api-keys';
import { bumpAfterWrite, transactionWithBumps, type VersionBumper } from '@sched/db/versions';
import test from 'ava';
import { setUpTestDatabase } from '../support/database.ts';
import { insertUser } from '../support/factories.ts';

// The data layer bumps the versions of what each write changed (shared/db/src/versions.ts): after
// the write, never inside a caller's transaction, and the keys access-facts.ts names.

const database = setUpTestDatabase(test);
const knex = () => database.db.knex;

/** A token store stand-in that records the keys bumped. */
function recorder(): VersionBumper & { keys: string[]; take(): string[] } {
  const keys: string[] = [];
  return {
    keys,
    async bumpVersion(key: string) {
      keys.push(key);
      return keys.length;
    },
    take() {
      return keys.splice(0).sort();
    },
  };
}

test('a bump with the store inside a caller transaction is refused; transactionWithBumps bumps after commit only', async (t) => {
  const store = recorder();
  await t.throwsAsync(
    knex().transaction((trx) => bumpAfterWrite(trx, store, ['user:1'])),
    { message: /transactionWithBumps/ },
  );
  t.deepEqual(store.take(), []);

  await transactionWithBumps(knex(), store, async (trx, bumper) => {
    await bumpAfterWrite(trx, bumper, ['user:1', 'org:2']);
    await bumpAfterWrite(trx, bumper, ['user:1']);
    t.deepEqual(store.keys, [], 'nothing before the commit');
  });
  t.deepEqual(store.take(), ['org:2', 'user:1'], 'each key once, after the commit');

  await t.throwsAsync(
    transactionWithBumps(knex(), store, async (trx, bumper) => {
      await bumpAfterWrite(trx, bumper, ['user:3']);
      throw new Error('rolled back');
    }),
    { message: 'rolled back' },
  );
  t.deepEqual(store.take(), [], 'no bump for a rolled-back write');
});

test('each write bumps the versions of what it changed', async (t) => {
  const store = recorder();
  const owner = await insertUser(knex());
  const member = await insertUser(knex());
  const { user: profiled } = await insertUser(knex());

  const org = await createOrganization(knex(), store, {
    name: 'Bumps',
    slug: `bumps-${owner.id}`,
    ownerUserId: owner.id,
  });
  t.deepEqual(store.take(), [`org:${org.id}`], 'createOrganization');
  await updateOrganization(knex(), store, org.id, { pbacEnabled: true });
  t.deepEqual(store.take(), [`org:${org.id}`], 'updateOrganization');

  const team = await createTeam(knex(), store, {
    name: 'T',
    slug: `t-${owner.id}`,
    organizationId: org.id,
    ownerUserId: owner.id,
  });
  t.deepEqual(store.take(), [`org:${org.id}`, `team:${team.id}`].sort(), 'createTeam in an organization');

  const parent = { kind: 'organization', id: org.id } as const;
  const membership = await createMembership(knex(), store, {
    parent,
    member: { userId: member.id },
    role: 'MEMBER',
    accepted: true,
  });
  t.deepEqual(store.take(), [`org:${org.id}`], 'createMembership');
  await updateMembership(knex(), store, parent, membership.id, { role: 'ADMIN' });
  t.deepEqual(store.take(), [`org:${org.id}`], 'updateMembership');

  const role = await createRole(knex(), store, org.id, { name: 'Bumped', permissions: ['booking.read'] });
  t.deepEqual(store.take(), [`org:${org.id}`], 'createRole');
  await addRolePermissions(knex(), store, role.id, ['booking.write']);
  t.deepEqual(store.take(), [`org:${org.id}`], 'addRolePermissions (the organization read from the role)');
  await removeRolePermissions(knex(), store, role.id, ['booking.write']);
  t.deepEqual(store.take(), [`org:${org.id}`], 'removeRolePermissions');
  await deleteRole(knex(), store, org.id, role.id);
  t.deepEqual(store.take(), [`org:${org.id}`], 'deleteRole');

  await deleteOrganizationMembership(knex(), store, org.id, membership.id);
  t.deepEqual(store.take(), [`org:${org.id}`], 'deleteOrganizationMembership');

  await updateUser(knex(), store, member.id, { name: 'New name' });
  t.deepEqual(store.take(), [`user:${member.id}`], 'updateUser');
  await setServiceAdmin(knex(), store, member.id, false);
  t.deepEqual(store.take(), [`user:${member.id}`], 'setServiceAdmin');
  const [key] = (await knex()('api_keys').where({ user_id: member.id }).select('id')) as Array<{
    id: number;
  }>;
  await revokeApiKey(knex(), store, member.id, Number(key!.id));
  t.deepEqual(store.take(), [`user:${member.id}`], 'revokeApiKey');

  await knex()('users').where({ id: profiled.id }).update({ onboarding_step: 'profile' });
  await saveOnboardingProfile(knex(), store, profiled.id, {
    name: 'Onboarded',
    username: `onboarded-${profiled.id}`,
    timeZone: 'Europe/London',
    weekStart: 'Monday',
  });
  t.deepEqual(store.take(), [`user:${profiled.id}`], 'saveOnboardingProfile');
  await saveOnboardingCalendar(knex(), store, profiled.id, null);
  t.deepEqual(store.take(), [`user:${profiled.id}`], 'saveOnboardingCalendar');

  // Nothing changed, nothing bumped.
  t.is(await updateMembership(knex(), store, parent, 987654321, { role: 'ADMIN' }), null);
  t.is(await updateUser(knex(), store, 987654321, { name: 'x' }), null);
  t.deepEqual(store.take(), []);
});
