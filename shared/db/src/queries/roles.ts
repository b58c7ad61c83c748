import type { Knex } from 'knex';
import { DuplicateRecordError } from '../errors.ts';
import { transactionWithBumps, type VersionBumper } from '../versions.ts';
import { accessVersionKey } from './access-facts.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { isUniqueViolation } from './pg-errors.ts';

/**
 * Roles of organizations: the three seeded system roles (owner_role, admin_role, member_role;
 * organization_id null, listed for every organization, unchangeable) and each organization's
 * custom roles with their PBAC permissions.
 */
export interface Role {
  id: string;
  name: string;
  color: string | null;
  description: string | null;
  /** Null for system roles. */
  organizationId: number | null;
  type: 'SYSTEM' | 'CUSTOM';
  /** Sorted. */
  permissions: string[];
  createdAt: Date;
  updatedAt: Date;
}

interface RoleRow {
  id: string;
  name: string;
  color: string | null;
  description: string | null;
  organization_id: number | string | null;
  type: 'SYSTEM' | 'CUSTOM';
  created_at: Date;
  updated_at: Date;
  permissions: string[] | string | null;
}

const PERMISSIONS_OF_ROLE = `coalesce((select json_agg(rp.permission order by rp.permission)
  from role_permissions rp where rp.role_id = r.id), '[]'::json) as permissions`;

const mapRole = (row: RoleRow): Role => ({
  id: row.id,
  name: row.name,
  color: row.color,
  description: row.description,
  organizationId: row.organization_id === null ? null : Number(row.organization_id),
  type: row.type,
  permissions: (typeof row.permissions === 'string' ? JSON.parse(row.permissions) : row.permissions) ?? [],
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const select = (knex: Knex) =>
  knex('roles as r').select(
    'r.id',
    'r.name',
    'r.color',
    'r.description',
    'r.organization_id',
    'r.type',
    'r.created_at',
    'r.updated_at',
    knex.raw(PERMISSIONS_OF_ROLE),
  );

/** Roles visible in an organization: system roles first (owner, admin, member), then its custom roles, oldest first. */
export async function listRoles(
  knex: Knex,
  organizationId: number,
  page: { skip: number; take: number },
): Promise<Role[]> {
  const rows = (await select(knex)
    .where((q) => q.where('r.type', 'SYSTEM').orWhere('r.organization_id', organizationId))
    .orderByRaw(
      "case r.id when 'owner_role' then 0 when 'admin_role' then 1 when 'member_role' then 2 else 3 end, r.created_at, r.id",
    )
    .offset(page.skip)
    .limit(page.take)) as RoleRow[];
  return rows.map(mapRole);
}

/** A system role or a custom role of this organization; null otherwise (another organization's too). */
export async function findRole(knex: Knex, organizationId: number, roleId: string): Promise<Role | null> {
  const row = (await select(knex)
    .where('r.id', roleId)
    .where((q) => q.where('r.type', 'SYSTEM').orWhere('r.organization_id', organizationId))
    .first()) as RoleRow | undefined;
  return row ? mapRole(row) : null;
}

function rethrowDuplicateName(error: unknown): never {
  if (isUniqueViolation(error, 'roles_org_name_lower_unique')) {
    throw new DuplicateRecordError('role', 'name');
  }
  throw error;
}

export interface NewRole {
  name: string;
  color?: string | null;
  description?: string | null;
  /** Already validated (`@sched/policy/permissions`). */
  permissions?: readonly string[];
}

/**
 * Role writes bump `org:<organizationId>` (custom roles and their permissions are access facts of
 * the organization) after they commit, and write their audit event (`role.created`, `.updated`,
 * `.deleted`, `.permissions_added`, `.permissions_replaced`, `.permissions_removed`) in their
 * transaction, with the organization set.
 */
const bumpOrganization = (versions: VersionBumper, organizationId: number | null) =>
  organizationId === null ? Promise.resolve(0) : versions.bumpVersion(accessVersionKey.org(organizationId));

/** What an event shows of a role. */
const roleView = (role: Role) => ({
  name: role.name,
  color: role.color,
  description: role.description,
  permissions: role.permissions,
});

/** Both views list the same values (permission lists come sorted). */
const sameView = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

async function recordRoleEvent(
  trx: Knex,
  audit: AuditContext | undefined,
  action: string,
  organizationId: number,
  roleId: string,
  views: { before?: unknown; after?: unknown },
): Promise<void> {
  await recordAuditEvent(trx, audit, {
    action,
    targetType: 'role',
    targetId: roleId,
    organizationId,
    ...views,
  });
}

/**
 * Creates a custom role. Duplicate name in the organization (any case):
 * DuplicateRecordError('role', 'name') (the API answers it with a 400).
 */
export async function createRole(
  knex: Knex,
  versions: VersionBumper,
  organizationId: number,
  input: NewRole,
  audit?: AuditContext,
): Promise<Role> {
  try {
    return await transactionWithBumps(knex, versions, async (trx, bumper) => {
      const [row] = (await trx('roles')
        .insert({
          organization_id: organizationId,
          name: input.name,
          color: input.color ?? null,
          description: input.description ?? null,
          type: 'CUSTOM',
        })
        .returning('id')) as Array<{ id: string }>;
      const permissions = [...new Set(input.permissions ?? [])];
      if (permissions.length > 0) {
        await trx('role_permissions').insert(
          permissions.map((permission) => ({ role_id: row!.id, permission })),
        );
      }
      const role = (await findRole(trx, organizationId, row!.id))!;
      await recordRoleEvent(trx, audit, 'role.created', organizationId, role.id, { after: roleView(role) });
      await bumpOrganization(bumper, organizationId);
      return role;
    });
  } catch (error) {
    rethrowDuplicateName(error);
  }
}

export interface RolePatch {
  name?: string;
  color?: string | null;
  description?: string | null;
  /** Replaces every permission of the role (already validated, `@sched/policy/permissions`). */
  permissions?: readonly string[];
}

/**
 * Updates a custom role of the organization (fields and, when given, its permissions, in one
 * transaction holding the role's row lock); null when there is none with this id.
 */
export async function updateRole(
  knex: Knex,
  versions: VersionBumper,
  organizationId: number,
  roleId: string,
  patch: RolePatch,
  audit?: AuditContext,
): Promise<Role | null> {
  const changes: Record<string, unknown> = { updated_at: knex.fn.now() };
  if (patch.name !== undefined) changes['name'] = patch.name;
  if (patch.color !== undefined) changes['color'] = patch.color;
  if (patch.description !== undefined) changes['description'] = patch.description;
  try {
    return await transactionWithBumps(knex, versions, async (trx, bumper) => {
      const locked = await trx('roles')
        .where({ id: roleId, organization_id: organizationId, type: 'CUSTOM' })
        .forUpdate()
        .first('id');
      if (!locked) return null;
      const before = (await findRole(trx, organizationId, roleId))!;
      await trx('roles').where({ id: roleId }).update(changes);
      if (patch.permissions !== undefined) {
        await trx('role_permissions').where({ role_id: roleId }).delete();
        await insertPermissions(trx, roleId, patch.permissions);
      }
      const after = (await findRole(trx, organizationId, roleId))!;
      // Values the role already had change nothing, and an audit event is for a change.
      if (!sameView(roleView(before), roleView(after))) {
        await recordRoleEvent(trx, audit, 'role.updated', organizationId, roleId, {
          before: roleView(before),
          after: roleView(after),
        });
      }
      await bumpOrganization(bumper, organizationId);
      return after;
    });
  } catch (error) {
    rethrowDuplicateName(error);
  }
}

/** Deletes a custom role of the organization (its memberships lose it); false when there is none. */
export async function deleteRole(
  knex: Knex,
  versions: VersionBumper,
  organizationId: number,
  roleId: string,
  audit?: AuditContext,
): Promise<boolean> {
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const before = await findRole(trx, organizationId, roleId);
    if (before?.type !== 'CUSTOM') return false;
    // `returning` rather than the affected-row count: knex-pglite does not report counts of deletes.
    const rows = (await trx('roles')
      .where({ id: roleId, organization_id: organizationId, type: 'CUSTOM' })
      .delete()
      .returning('id')) as unknown[];
    if (rows.length === 0) return false;
    await recordRoleEvent(trx, audit, 'role.deleted', organizationId, roleId, { before: roleView(before) });
    await bumpOrganization(bumper, organizationId);
    return true;
  });
}

export async function listRolePermissions(knex: Knex, roleId: string): Promise<string[]> {
  const rows = (await knex('role_permissions')
    .where({ role_id: roleId })
    .orderBy('permission')
    .select('permission')) as Array<{ permission: string }>;
  return rows.map((row) => row.permission);
}

/**
 * First statement of every permission change: bumps updated_at and takes the role's row lock, so
 * concurrent changes of one role's permissions run one after the other. Returns the role's
 * organization (null for none: a system role, or no such role), whose version the change bumps.
 */
async function lockAndTouch(trx: Knex, roleId: string): Promise<number | null> {
  const [row] = (await trx('roles')
    .where({ id: roleId })
    .update({ updated_at: trx.fn.now() })
    .returning('organization_id')) as Array<{ organization_id: number | string | null }>;
  return row?.organization_id == null ? null : Number(row.organization_id);
}

/** Inserts permissions the role does not hold yet (each once). */
async function insertPermissions(trx: Knex.Transaction, roleId: string, permissions: readonly string[]) {
  if (permissions.length === 0) return;
  await trx('role_permissions')
    .insert([...new Set(permissions)].map((permission) => ({ role_id: roleId, permission })))
    .onConflict(['role_id', 'permission'])
    .ignore();
}

/**
 * One permission change of a role under its row lock, with its event (before/after permissions)
 * when the role belongs to an organization and its permissions changed; returns the role's
 * permissions afterwards.
 */
async function changePermissions(
  knex: Knex,
  versions: VersionBumper,
  roleId: string,
  action: string,
  audit: AuditContext | undefined,
  change: (trx: Knex.Transaction) => Promise<void>,
): Promise<string[]> {
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const organizationId = await lockAndTouch(trx, roleId);
    const before = await listRolePermissions(trx, roleId);
    await change(trx);
    const after = await listRolePermissions(trx, roleId);
    // Adding what the role holds, or removing what it lacks, changes nothing: no event.
    if (organizationId !== null && !sameView(before, after)) {
      await recordRoleEvent(trx, audit, action, organizationId, roleId, {
        before: { permissions: before },
        after: { permissions: after },
      });
    }
    await bumpOrganization(bumper, organizationId);
    return after;
  });
}

/** Adds permissions (those already held are kept once); returns the role's permissions. */
export function addRolePermissions(
  knex: Knex,
  versions: VersionBumper,
  roleId: string,
  permissions: readonly string[],
  audit?: AuditContext,
): Promise<string[]> {
  return changePermissions(knex, versions, roleId, 'role.permissions_added', audit, (trx) =>
    insertPermissions(trx, roleId, permissions),
  );
}

/** Replaces every permission of the role; returns the new list. */
export function replaceRolePermissions(
  knex: Knex,
  versions: VersionBumper,
  roleId: string,
  permissions: readonly string[],
  audit?: AuditContext,
): Promise<string[]> {
  return changePermissions(knex, versions, roleId, 'role.permissions_replaced', audit, async (trx) => {
    await trx('role_permissions').where({ role_id: roleId }).delete();
    await insertPermissions(trx, roleId, permissions);
  });
}

/** Removes the permissions the role holds among these (others are ignored); returns what is left. */
export function removeRolePermissions(
  knex: Knex,
  versions: VersionBumper,
  roleId: string,
  permissions: readonly string[],
  audit?: AuditContext,
): Promise<string[]> {
  return changePermissions(knex, versions, roleId, 'role.permissions_removed', audit, async (trx) => {
    if (permissions.length === 0) return;
    await trx('role_permissions')
      .where({ role_id: roleId })
      .whereIn('permission', [...permissions])
      .delete();
  });
}
