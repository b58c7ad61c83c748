import type { Knex } from 'knex';
import { DuplicateRecordError } from '../errors.ts';
import { transactionWithBumps, type VersionBumper } from '../versions.ts';
import { accessVersionKey } from './access-facts.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { createMembership } from './memberships.ts';
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

/** What an event shows of an organization. */
const organizationAuditView = (organization: Organization) => ({
  name: organization.name,
  slug: organization.slug,
  pbacEnabled: organization.pbacEnabled,
});

/**
 * Creates an organization and its owner's membership, with their events (`organization.created`,
 * then the owner's `membership.added`) in the same transaction; `audit` names who acts (the
 * system without one). Slug taken (any case): DuplicateRecordError('organization', 'slug'); the
 * owner gone: RecordNotFoundError('user').
 */
export async function createOrganization(
  knex: Knex,
  versions: VersionBumper,
  input: NewOrganization,
  audit?: AuditContext,
): Promise<Organization> {
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    let organization: Organization;
    try {
      const [row] = (await trx('organizations')
        .insert({ name: input.name, slug: input.slug, pbac_enabled: input.pbacEnabled ?? false })
        .returning(COLUMNS)) as OrganizationRow[];
      organization = mapOrganization(row!);
    } catch (error) {
      rethrowSlugConflict(error);
    }
    await recordAuditEvent(trx, audit, {
      action: 'organization.created',
      targetType: 'organization',
      targetId: organization.id,
      organizationId: organization.id,
      after: organizationAuditView(organization),
      details: { ownerUserId: input.ownerUserId },
    });
    await createMembership(
      trx,
      bumper,
      {
        parent: { kind: 'organization', id: organization.id },
        member: { userId: input.ownerUserId },
        role: 'OWNER',
        accepted: true,
      },
      { audit },
    );
    await bumper.bumpVersion(accessVersionKey.org(organization.id));
    return organization;
  });
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

/**
 * Applies the patch with its `organization.updated` event (before and after of the changed
 * fields; none when nothing changes); null when there is no such organization. Slug taken:
 * DuplicateRecordError.
 */
export async function updateOrganization(
  knex: Knex,
  versions: VersionBumper,
  id: number,
  patch: OrganizationPatch,
  audit?: AuditContext,
): Promise<Organization | null> {
  if (!Number.isSafeInteger(id)) return null;
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const current = (await trx('organizations').where({ id }).forUpdate().first(COLUMNS)) as
      | OrganizationRow
      | undefined;
    if (!current) return null;
    const before = organizationAuditView(mapOrganization(current));
    const changes: Record<string, unknown> = {};
    const changed: Array<keyof typeof before> = [];
    for (const [field, column] of [
      ['name', 'name'],
      ['slug', 'slug'],
      ['pbacEnabled', 'pbac_enabled'],
    ] as const) {
      const value = patch[field];
      if (value === undefined || value === before[field]) continue;
      changes[column] = value;
      changed.push(field);
    }
    if (changed.length === 0) return mapOrganization(current);
    changes['updated_at'] = trx.fn.now();
    let row: OrganizationRow;
    try {
      [row] = (await trx('organizations').where({ id }).update(changes).returning(COLUMNS)) as [
        OrganizationRow,
      ];
    } catch (error) {
      rethrowSlugConflict(error);
    }
    const organization = mapOrganization(row);
    const after = organizationAuditView(organization);
    await recordAuditEvent(trx, audit, {
      action: 'organization.updated',
      targetType: 'organization',
      targetId: id,
      organizationId: id,
      before: Object.fromEntries(changed.map((field) => [field, before[field]])),
      after: Object.fromEntries(changed.map((field) => [field, after[field]])),
    });
    await bumper.bumpVersion(accessVersionKey.org(id));
    return organization;
  });
}
