import type { Knex } from 'knex';
import { DuplicateRecordError } from '../errors.ts';
import { bumpAfterWrite, type VersionBumper } from '../versions.ts';
import { accessVersionKey } from './access-facts.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { findMembership, membershipAuditView } from './memberships.ts';
import { isUniqueViolation } from './pg-errors.ts';

/** A team; `organizationId` null for a team outside any organization. */
export interface Team {
  id: number;
  name: string;
  slug: string;
  organizationId: number | null;
  createdAt: Date;
  updatedAt: Date;
}

interface TeamRow {
  id: number | string;
  name: string;
  slug: string;
  organization_id: number | string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['t.id', 't.name', 't.slug', 't.organization_id', 't.created_at', 't.updated_at'];

const mapTeam = (row: TeamRow): Team => ({
  id: Number(row.id),
  name: row.name,
  slug: row.slug,
  organizationId: row.organization_id === null ? null : Number(row.organization_id),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export interface NewTeam {
  name: string;
  slug: string;
  organizationId: number | null;
  /** Becomes the team's OWNER (accepted membership), in the same transaction. */
  ownerUserId: number;
}

/**
 * Creates a team and its owner's membership, with that membership's `membership.added` event
 * (`details.teamCreated`; the request's `audit` context names the creator). Slug taken (any case;
 * per organization, or among teams outside organizations): DuplicateRecordError('team', 'slug').
 */
export async function createTeam(
  knex: Knex,
  versions: VersionBumper,
  input: NewTeam,
  audit?: AuditContext,
): Promise<Team> {
  let created: Team;
  try {
    created = await knex.transaction(async (trx) => {
      const [row] = (await trx('teams')
        .insert({ name: input.name, slug: input.slug, organization_id: input.organizationId })
        .returning(['id', 'name', 'slug', 'organization_id', 'created_at', 'updated_at'])) as TeamRow[];
      const team = mapTeam(row!);
      const [owner] = (await trx('memberships')
        .insert({
          user_id: input.ownerUserId,
          team_id: team.id,
          role: 'OWNER',
          accepted: true,
        })
        .returning('id')) as Array<{ id: number | string }>;
      const membership = (await findMembership(trx, { kind: 'team', id: team.id }, Number(owner!.id)))!;
      // The creator joins the team: a membership like any other in the log.
      await recordAuditEvent(trx, audit, {
        action: 'membership.added',
        targetType: 'membership',
        targetId: membership.id,
        organizationId: team.organizationId,
        after: membershipAuditView(membership),
        details: { teamCreated: true },
      });
      return team;
    });
  } catch (error) {
    if (isUniqueViolation(error, ['teams_org_slug_lower_unique', 'teams_slug_lower_unique'])) {
      throw new DuplicateRecordError('team', 'slug');
    }
    throw error;
  }
  // A team created in an organization is a fact of the organization too.
  const keys = [accessVersionKey.team(created.id)];
  if (created.organizationId !== null) keys.push(accessVersionKey.org(created.organizationId));
  await bumpAfterWrite(knex, versions, keys);
  return created;
}

export async function findTeamById(knex: Knex, id: number): Promise<Team | null> {
  if (!Number.isSafeInteger(id)) return null;
  const row = (await knex('teams as t').where('t.id', id).first(COLUMNS)) as TeamRow | undefined;
  return row ? mapTeam(row) : null;
}

/** Teams the user has an accepted membership of, oldest first. */
export async function listTeamsOfUser(
  knex: Knex,
  userId: number,
  page: { skip: number; take: number },
): Promise<Team[]> {
  const rows = (await knex('teams as t')
    .join('memberships as m', 'm.team_id', 't.id')
    .where({ 'm.user_id': userId, 'm.accepted': true })
    .orderBy('t.id', 'asc')
    .offset(page.skip)
    .limit(page.take)
    .select(COLUMNS)) as TeamRow[];
  return rows.map(mapTeam);
}

/** Teams of the organization, oldest first. */
export async function listTeamsOfOrganization(
  knex: Knex,
  organizationId: number,
  page: { skip: number; take: number },
): Promise<Team[]> {
  const rows = (await knex('teams as t')
    .where('t.organization_id', organizationId)
    .orderBy('t.id', 'asc')
    .offset(page.skip)
    .limit(page.take)
    .select(COLUMNS)) as TeamRow[];
  return rows.map(mapTeam);
}
