import type { Knex } from '@sched/db/connection';
import { migrations } from '@sched/migrations';
import { RESERVED_ROLE_NAMES } from '@sched/policy/role-names';
import { SYSTEM_ROLE_IDS, SYSTEM_ROLE_PERMISSIONS } from '@sched/policy/system-roles';
import test, { type ExecutionContext } from 'ava';
import { createTestDatabase, databaseBackends, type TestDatabase } from '../support/database.ts';

// The roles table and the policy agree: the seeded system roles hold exactly the lists the code
// uses (`@sched/policy/system-roles`), and the schema refuses a custom role with a reserved name
// (migration 0008), renaming the ones made before it.

const databases = new Map<string, TestDatabase>();

test.before(async () => {
  for (const backend of databaseBackends()) databases.set(backend, await createTestDatabase({ backend }));
});

test.after.always(async () => {
  for (const database of databases.values()) await database.drop();
});

function eachBackend(title: string, body: (t: ExecutionContext, knex: Knex) => Promise<void>) {
  for (const backend of databaseBackends()) {
    // Serial: the migration test takes the constraint away for a moment.
    test.serial(`${backend}: ${title}`, async (t) => body(t, databases.get(backend)!.db.knex));
  }
}

let sequence = 0;
async function newOrganization(knex: Knex): Promise<number> {
  const slug = `role-rows-${++sequence}`;
  const [row] = (await knex('organizations').insert({ name: slug, slug }).returning('id')) as Array<{
    id: number;
  }>;
  return Number(row!.id);
}

eachBackend('the seeded system roles hold exactly the policy lists', async (t, knex) => {
  const rows = (await knex('role_permissions')
    .join('roles', 'roles.id', 'role_permissions.role_id')
    .where('roles.type', 'SYSTEM')
    .select('role_id', 'permission')) as Array<{ role_id: string; permission: string }>;
  const seeded = Object.fromEntries(
    SYSTEM_ROLE_IDS.map((id) => [
      id,
      rows
        .filter((r) => r.role_id === id)
        .map((r) => r.permission)
        .sort(),
    ]),
  );
  const policy = Object.fromEntries(
    SYSTEM_ROLE_IDS.map((id) => [id, [...SYSTEM_ROLE_PERMISSIONS[id]].sort()]),
  );
  t.deepEqual(seeded, policy);
  t.deepEqual(
    [...new Set(rows.map((r) => r.role_id))].sort(),
    [...SYSTEM_ROLE_IDS].sort(),
    'no other system role',
  );
});

eachBackend('a custom role cannot bear a reserved name, in any case', async (t, knex) => {
  const organization = await newOrganization(knex);
  for (const name of [...RESERVED_ROLE_NAMES, 'Owner', 'ADMIN_ROLE', ' member ']) {
    const error = (await t.throwsAsync(knex('roles').insert({ organization_id: organization, name }))) as
      | { code?: string; constraint?: string }
      | undefined;
    t.is(error?.code, '23514', name);
    t.is(error?.constraint, 'roles_custom_name_not_reserved', name);
  }
  await knex('roles').insert({ organization_id: organization, name: 'Owners of booking' });
  t.pass();
});

eachBackend(
  'migration 0008 renames a reserved custom role name it finds, keeping the role',
  async (t, knex) => {
    const step = migrations.find(([name]) => name === '0008_role_names')![1];
    const organization = await newOrganization(knex);
    await step.down(knex);
    try {
      await knex('roles').insert({
        id: `role_reserved_${sequence}`,
        organization_id: organization,
        name: 'Owner',
      });
    } finally {
      await step.up(knex);
    }
    const row = (await knex('roles')
      .where({ id: `role_reserved_${sequence}` })
      .first('name')) as { name: string };
    t.is(row.name, `Owner (role_reserved_${sequence})`);
  },
);

eachBackend(
  'migration 0023 takes organization.listMembers off member_role; its down puts it back',
  async (t, knex) => {
    const step = migrations.find(([name]) => name === '0023_member_role_list_members')![1];
    const memberRole = async () =>
      (
        (await knex('role_permissions').where({ role_id: 'member_role' }).pluck('permission')) as string[]
      ).sort();
    t.false((await memberRole()).includes('organization.listMembers'));
    await step.down(knex);
    try {
      t.true((await memberRole()).includes('organization.listMembers'));
    } finally {
      await step.up(knex);
    }
    t.deepEqual(await memberRole(), [...SYSTEM_ROLE_PERMISSIONS.member_role].sort());
  },
);
