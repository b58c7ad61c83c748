import type { Knex } from 'knex';
import { likePattern } from './like-pattern.ts';
import { mapOrganization, type Organization, type OrganizationRow } from './organizations.ts';

/** The admin console's list of organizations (service administrators): search by name or slug. */

export interface AdminOrganization extends Organization {
  /** Accepted memberships. */
  memberCount: number;
}

interface Row extends OrganizationRow {
  member_count: number | string;
}

/** Organizations whose name or slug contains `q` (any case; all when empty), newest first. */
export async function searchOrganizations(
  knex: Knex,
  options: { q?: string; skip: number; take: number },
): Promise<AdminOrganization[]> {
  const members = knex('memberships as m')
    .whereRaw('m.organization_id = o.id')
    .where('m.accepted', true)
    .count('*');
  const query = knex('organizations as o').select([
    'o.id',
    'o.name',
    'o.slug',
    'o.pbac_enabled',
    'o.created_at',
    'o.updated_at',
    members.as('member_count'),
  ]);
  const q = options.q?.trim() ?? '';
  if (q !== '') {
    const pattern = likePattern(q.toLowerCase());
    query.where((where) =>
      where.whereRaw('lower(o.name) like ?', [pattern]).orWhereRaw('lower(o.slug) like ?', [pattern]),
    );
  }
  const rows = (await query
    .orderBy([
      { column: 'o.created_at', order: 'desc' },
      { column: 'o.id', order: 'desc' },
    ])
    .offset(options.skip)
    .limit(options.take)) as Row[];
  return rows.map((row) => ({ ...mapOrganization(row), memberCount: Number(row.member_count) }));
}
