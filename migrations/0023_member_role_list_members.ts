import type { Knex } from 'knex';

/**
 * The seeded `member_role` no longer lists `organization.listMembers`: reading an organization's
 * members needs ADMIN or that permission on a custom role, and the MEMBER role never opened it, so
 * the role list (`GET .../roles`) showed members holding a permission they could not use. The
 * policy list (`@sched/policy/system-roles`) drops it in the same change.
 */
const ROW = { role_id: 'member_role', permission: 'organization.listMembers' };

export async function up(knex: Knex): Promise<void> {
  const removed = await knex('role_permissions').where(ROW).delete();
  if (removed > 0) await knex('roles').where({ id: ROW.role_id }).update({ updated_at: knex.fn.now() });
}

export async function down(knex: Knex): Promise<void> {
  await knex('role_permissions').insert(ROW).onConflict(['role_id', 'permission']).ignore();
}
