import type { Knex } from 'knex';
import { DuplicateRecordError } from '../errors.ts';
import { bumpAfterWrite, type VersionBumper } from '../versions.ts';
import { accessVersionKey } from './access-facts.ts';
import { isUniqueViolation } from './pg-errors.ts';

/** An organization: `{id, name, slug, pbacEnabled}`. */
export interface Organization {
  id: number;
  name: string;
  slug: string;
  pbacEnabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface OrganizationRow {
  id: number | string;
  name: string;
  slug: string;
  pbac_enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'name', 'slug', 'pbac_enabled', 'created_at', 'updated_at'] as const;

export const mapOrganization = (row: OrganizationRow): Organization => ({
  id: Number(row.id),
  name: row.name,
  slug: row.slug,
  pbacEnabled: row.pbac_enabled,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

function rethrowSlugConflict(error: unknown): never {
  if (isUniqueViolation(error, 'organizations_slug_lower_unique')) {
    throw new DuplicateRecordError('organization', 'slug');
  }
  throw error;
}

export interface NewOrganization {
  name: string;
  slug: string;
  pbacEnabled?: boolean;
  /** Becomes the organization's OWNER (accepted membership), in the same transaction. */
  ownerUserId: number;
}

/** Creates an organization and its owner's membership. Slug taken (any case): DuplicateRecordError('organization', 'slug'). */
export async function createOrganization(
  knex: Knex,
  versions: VersionBumper,
  input: NewOrganization,
): Promise<Organization> {
  let created: Organization;
  try {
    created = await knex.transaction(async (trx) => {
      const [row] = (await trx('organizations')
        .insert({ name: input.name, slug: input.slug, pbac_enabled: input.pbacEnabled ?? false })
        .returning(COLUMNS)) as OrganizationRow[];
      const organization = mapOrganization(row!);
      await trx('memberships').insert({
        user_id: input.ownerUserId,
        organization_id: organization.id,
        role: 'OWNER',
        accepted: true,
      });
      return organization;
    });
  } catch (error) {
    rethrowSlugConflict(error);
  }
  await bumpAfterWrite(knex, versions, [accessVersionKey.org(created.id)]);
  return created;
}

export async function findOrganizationById(knex: Knex, id: number): Promise<Organization | null> {
  if (!Number.isSafeInteger(id)) return null;
  const row = (await knex('organizations').where({ id }).first(COLUMNS)) as OrganizationRow | undefined;
  return row ? mapOrganization(row) : null;
}

export interface OrganizationPatch {
  name?: string;
  slug?: string;
  pbacEnabled?: boolean;
}

/** Applies the patch; null when there is no such organization. Slug taken: DuplicateRecordError. */
export async function updateOrganization(
  knex: Knex,
  versions: VersionBumper,
  id: number,
  patch: OrganizationPatch,
): Promise<Organization | null> {
  const changes: Record<string, unknown> = {};
  if (patch.name !== undefined) changes['name'] = patch.name;
  if (patch.slug !== undefined) changes['slug'] = patch.slug;
  if (patch.pbacEnabled !== undefined) changes['pbac_enabled'] = patch.pbacEnabled;
  if (Object.keys(changes).length === 0) return findOrganizationById(knex, id);
  changes['updated_at'] = knex.fn.now();
  let row: OrganizationRow | undefined;
  try {
    [row] = (await knex('organizations').where({ id }).update(changes).returning(COLUMNS)) as
      | OrganizationRow[]
      | [];
  } catch (error) {
    rethrowSlugConflict(error);
  }
  if (!row) return null;
  await bumpAfterWrite(knex, versions, [accessVersionKey.org(id)]);
  return mapOrganization(row);
}
