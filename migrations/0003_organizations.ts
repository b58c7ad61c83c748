import type { Knex } from 'knex';

/**
 * Organizations, teams, roles (system and custom), role permissions and memberships
 * (docs/schema.md). One `memberships` table serves both organizations and teams: each row
 * belongs to exactly one of them.
 */

/** Seeded system roles; they are listed beside custom roles and cannot be changed. */
const SYSTEM_ROLES = [
  {
    id: 'owner_role',
    name: 'Owner',
    color: '#7c3aed',
    description: 'Full access to the organization, its teams and their settings',
    permissions: ['*.*'],
  },
  {
    id: 'admin_role',
    name: 'Admin',
    color: '#2563eb',
    description: 'Manages members, teams, roles, event types, bookings and schedules',
    permissions: [
      'role.*',
      'eventType.*',
      'team.*',
      'booking.*',
      'schedule.*',
      'organization.read',
      'organization.update',
      'organization.invite',
      'organization.remove',
      'organization.listMembers',
      'organization.changeMemberRole',
    ],
  },
  {
    id: 'member_role',
    name: 'Member',
    color: '#16a34a',
    description: 'Reads the organization, its teams and their members',
    permissions: [
      'organization.read',
      'organization.listMembers',
      'team.read',
      'team.listMembers',
      'role.read',
      'eventType.read',
      'booking.read',
      'schedule.read',
    ],
  },
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (table) => {
    table.bigIncrements('id');
    table.text('name').notNullable();
    table.text('slug').notNullable();
    table.boolean('pbac_enabled').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("name <> ''", [], 'organizations_name_not_empty');
    table.check("slug <> ''", [], 'organizations_slug_not_empty');
  });
  await knex.raw('create unique index organizations_slug_lower_unique on organizations (lower(slug))');

  await knex.schema.createTable('teams', (table) => {
    table.bigIncrements('id');
    table.text('name').notNullable();
    table.text('slug').notNullable();
    table.bigInteger('organization_id').references('id').inTable('organizations').onDelete('CASCADE');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("name <> ''", [], 'teams_name_not_empty');
    table.check("slug <> ''", [], 'teams_slug_not_empty');
  });
  // Slug unique within an organization; teams outside any organization share one namespace.
  await knex.raw(
    'create unique index teams_org_slug_lower_unique on teams (organization_id, lower(slug)) ' +
      'where organization_id is not null',
  );
  await knex.raw(
    'create unique index teams_slug_lower_unique on teams (lower(slug)) where organization_id is null',
  );

  await knex.schema.createTable('roles', (table) => {
    // Text: system roles have the fixed ids owner_role, admin_role, member_role; custom roles get
    // a random one ('role_' + 32 hex) unless the caller supplies it.
    table.text('id').primary().defaultTo(knex.raw("'role_' || replace(gen_random_uuid()::text, '-', '')"));
    table.bigInteger('organization_id').references('id').inTable('organizations').onDelete('CASCADE');
    table.text('name').notNullable();
    table.text('color');
    table.text('description');
    table.text('type').notNullable().defaultTo('CUSTOM');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("type in ('SYSTEM', 'CUSTOM')", [], 'roles_type_check');
    table.check("name <> ''", [], 'roles_name_not_empty');
    // System roles belong to no organization; custom roles to exactly one.
    table.check("(type = 'SYSTEM') = (organization_id is null)", [], 'roles_owner_check');
  });
  // coalesce: system roles (organization_id null) are unique among themselves too.
  await knex.raw(
    'create unique index roles_org_name_lower_unique on roles (coalesce(organization_id, 0), lower(name))',
  );

  await knex.schema.createTable('role_permissions', (table) => {
    table.text('role_id').notNullable().references('id').inTable('roles').onDelete('CASCADE');
    table.text('permission').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['role_id', 'permission'], { constraintName: 'role_permissions_pkey' });
    table.check("permission ~ '^[A-Za-z*]+\\.[A-Za-z*]+$'", [], 'role_permissions_format');
  });

  await knex.schema.createTable('memberships', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.bigInteger('team_id').references('id').inTable('teams').onDelete('CASCADE');
    table.bigInteger('organization_id').references('id').inTable('organizations').onDelete('CASCADE');
    table.text('role').notNullable().defaultTo('MEMBER');
    table.boolean('accepted').notNullable().defaultTo(false);
    table.text('custom_role_id').references('id').inTable('roles').onDelete('SET NULL');
    table.boolean('disable_impersonation').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("role in ('OWNER', 'ADMIN', 'MEMBER')", [], 'memberships_role_check');
    table.check('num_nonnulls(team_id, organization_id) = 1', [], 'memberships_team_xor_organization');
    // Leading user_id: these also serve "memberships of a user".
    table.unique(['user_id', 'team_id'], { indexName: 'memberships_user_team_unique' });
    table.unique(['user_id', 'organization_id'], { indexName: 'memberships_user_organization_unique' });
  });
  await knex.raw('create index memberships_team_id on memberships (team_id) where team_id is not null');
  await knex.raw(
    'create index memberships_organization_id on memberships (organization_id) where organization_id is not null',
  );
  await knex.raw(
    'create index memberships_custom_role_id on memberships (custom_role_id) where custom_role_id is not null',
  );

  await knex('roles').insert(
    SYSTEM_ROLES.map(({ id, name, color, description }) => ({
      id,
      name,
      color,
      description,
      type: 'SYSTEM',
    })),
  );
  await knex('role_permissions').insert(
    SYSTEM_ROLES.flatMap(({ id, permissions }) =>
      permissions.map((permission) => ({ role_id: id, permission })),
    ),
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('memberships');
  await knex.schema.dropTableIfExists('role_permissions');
  await knex.schema.dropTableIfExists('roles');
  await knex.schema.dropTableIfExists('teams');
  await knex.schema.dropTableIfExists('organizations');
}
