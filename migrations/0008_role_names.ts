import type { Knex } from 'knex';

/**
 * Custom role names may not be the name of a system role or of a membership role, in any case
 * (`@sched/policy/role-names` is the API's check, this the schema's). Uniqueness per organization
 * ignoring case is `roles_org_name_lower_unique` (0003).
 *
 * A custom role named so before this step keeps its permissions and memberships and gets its id
 * appended to its name ("Owner (role_…)": unique, since ids are), so the constraint holds for
 * every row.
 */
const RESERVED = ['owner', 'admin', 'member', 'owner_role', 'admin_role', 'member_role'];
const RESERVED_SQL = RESERVED.map((name) => `'${name}'`).join(', ');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `update roles set name = name || ' (' || id || ')', updated_at = now()
      where type = 'CUSTOM' and lower(btrim(name)) in (${RESERVED_SQL})`,
  );
  await knex.raw(
    `alter table roles add constraint roles_custom_name_not_reserved
      check (type = 'SYSTEM' or lower(btrim(name)) not in (${RESERVED_SQL}))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table roles drop constraint if exists roles_custom_name_not_reserved');
}
