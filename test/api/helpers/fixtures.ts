import { randomBytes } from 'node:crypto';
import { createApiKey } from '@sched/db/queries/api-keys';
import type { Knex } from 'knex';

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}${randomBytes(3).toString('hex')}`;

export interface TestUser {
  id: number;
  email: string;
  apiKey: string;
}

/**
 * Users straight into the table (no default schedule: fast enough to make hundreds at once for
 * the matrix), each with an API key.
 */
export async function insertUsers(
  knex: Knex,
  count: number,
  options: { serviceAdmin?: boolean; withApiKeys?: boolean } = {},
): Promise<TestUser[]> {
  if (count === 0) return [];
  const rows = Array.from({ length: count }, () => {
    const tag = unique();
    return {
      email: `user-${tag}@example.test`,
      username: `user-${tag}`,
      name: `User ${tag}`,
      is_service_admin: options.serviceAdmin ?? false,
    };
  });
  const inserted = (await knex('users').insert(rows).returning(['id', 'email'])) as Array<{
    id: number;
    email: string;
  }>;
  const users: TestUser[] = [];
  for (const row of inserted) {
    const apiKey = options.withApiKeys === false ? '' : (await createApiKey(knex, Number(row.id))).plain;
    users.push({ id: Number(row.id), email: row.email, apiKey });
  }
  return users;
}

export async function insertUser(knex: Knex, options: { serviceAdmin?: boolean } = {}): Promise<TestUser> {
  return (await insertUsers(knex, 1, options))[0]!;
}

export async function insertOrganization(
  knex: Knex,
  options: { pbacEnabled?: boolean } = {},
): Promise<number> {
  const tag = unique();
  const [row] = (await knex('organizations')
    .insert({ name: `Org ${tag}`, slug: `org-${tag}`, pbac_enabled: options.pbacEnabled ?? false })
    .returning('id')) as Array<{ id: number }>;
  return Number(row!.id);
}

export async function insertTeam(knex: Knex, organizationId: number | null): Promise<number> {
  const tag = unique();
  const [row] = (await knex('teams')
    .insert({ name: `Team ${tag}`, slug: `team-${tag}`, organization_id: organizationId })
    .returning('id')) as Array<{ id: number }>;
  return Number(row!.id);
}

export type RoleName = 'OWNER' | 'ADMIN' | 'MEMBER';

export interface MembershipRow {
  userId: number;
  role: RoleName;
  accepted?: boolean;
  teamId?: number;
  organizationId?: number;
  customRoleId?: string | null;
}

/** Memberships straight into the table; returns their ids in order. */
export async function insertMemberships(knex: Knex, rows: readonly MembershipRow[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = (await knex('memberships')
    .insert(
      rows.map((row) => ({
        user_id: row.userId,
        team_id: row.teamId ?? null,
        organization_id: row.organizationId ?? null,
        role: row.role,
        accepted: row.accepted ?? true,
        custom_role_id: row.customRoleId ?? null,
      })),
    )
    .returning('id')) as Array<{ id: number }>;
  return inserted.map((row) => Number(row.id));
}

export async function insertMembership(knex: Knex, row: MembershipRow): Promise<number> {
  return (await insertMemberships(knex, [row]))[0]!;
}

/** A custom role of the organization with these permissions; returns its id. */
export async function insertCustomRole(
  knex: Knex,
  organizationId: number,
  permissions: readonly string[],
): Promise<string> {
  const [row] = (await knex('roles')
    .insert({ organization_id: organizationId, name: `Role ${unique()}`, type: 'CUSTOM' })
    .returning('id')) as Array<{ id: string }>;
  if (permissions.length > 0) {
    await knex('role_permissions').insert(
      permissions.map((permission) => ({ role_id: row!.id, permission })),
    );
  }
  return row!.id;
}

export interface MemberSpec {
  org?: RoleName;
  team?: RoleName;
  /** Accepted (default true) for both memberships. */
  accepted?: boolean;
  /** Permissions of a custom role put on each of the member's memberships. */
  permissions?: readonly string[];
}

export interface Scene<K extends string> {
  orgId: number;
  teamId: number;
  users: Record<K, TestUser>;
  /** Membership ids by member: org and team. */
  orgMembership: Partial<Record<K, number>>;
  teamMembership: Partial<Record<K, number>>;
}

/** An organization (PBAC on or off) with one team and the given members, straight into the tables. */
export async function buildScene<K extends string>(
  knex: Knex,
  members: Record<K, MemberSpec>,
  options: { pbacEnabled?: boolean } = {},
): Promise<Scene<K>> {
  const orgId = await insertOrganization(knex, { pbacEnabled: options.pbacEnabled ?? false });
  const teamId = await insertTeam(knex, orgId);
  const names = Object.keys(members) as K[];
  const created = await insertUsers(knex, names.length);
  const users = {} as Record<K, TestUser>;
  const orgMembership: Partial<Record<K, number>> = {};
  const teamMembership: Partial<Record<K, number>> = {};
  for (const [i, name] of names.entries()) {
    users[name] = created[i]!;
    const spec = members[name];
    const customRoleId = spec.permissions ? await insertCustomRole(knex, orgId, spec.permissions) : null;
    const accepted = spec.accepted ?? true;
    if (spec.org) {
      orgMembership[name] = await insertMembership(knex, {
        userId: users[name].id,
        organizationId: orgId,
        role: spec.org,
        accepted,
        customRoleId,
      });
    }
    if (spec.team) {
      teamMembership[name] = await insertMembership(knex, {
        userId: users[name].id,
        teamId,
        role: spec.team,
        accepted,
        customRoleId,
      });
    }
  }
  return { orgId, teamId, users, orgMembership, teamMembership };
}
