import type { Role } from '@sched/policy/roles';
import type { Knex } from 'knex';
import { DuplicateRecordError, type RecordKind, RecordNotFoundError } from '../errors.ts';
import { bumpAfterWrite, transactionWithBumps, type VersionBumper } from '../versions.ts';
import { accessVersionKey } from './access-facts.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { isForeignKeyViolation, isUniqueViolation } from './pg-errors.ts';

/**
 * Memberships of organizations and teams (one table; each row belongs to exactly one of them,
 * docs/schema.md). Functions take the parent as a `MembershipParent` so the same code serves both.
 * A membership is of a user (`userId`), or, while it is an invitation to an e-mail address that
 * nobody has accepted yet, of that address (`invitedEmail`, no user). Reads and creation are
 * here; changes and removals, judged on locked rows, are in `./membership-changes.ts`.
 */
export type MembershipParent = { kind: 'organization'; id: number } | { kind: 'team'; id: number };

/** The version a change of the parent's memberships bumps: `org:<id>` or `team:<id>` (access-facts.ts). */
export const parentVersionKey = (parent: MembershipParent): string =>
  parent.kind === 'organization' ? accessVersionKey.org(parent.id) : accessVersionKey.team(parent.id);

/** Every membership write bumps its parent's version once it is committed. */
export const bumpParent = (knex: Knex, versions: VersionBumper, parent: MembershipParent): Promise<void> =>
  bumpAfterWrite(knex, versions, [parentVersionKey(parent)]);

/** The member's public profile, as the Membership output shows it. */
export interface MemberProfile {
  email: string;
  avatarUrl: string | null;
  username: string | null;
  name: string | null;
  bio: string | null;
  metadata: Record<string, unknown>;
}

export interface Membership {
  id: number;
  /** Null while this is an invitation to an e-mail address (`invitedEmail`). */
  userId: number | null;
  invitedEmail: string | null;
  invitedByUserId: number | null;
  teamId: number | null;
  organizationId: number | null;
  role: Role;
  accepted: boolean;
  customRoleId: string | null;
  disableImpersonation: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Null for an invitation to an e-mail address. */
  user: MemberProfile | null;
}

interface MembershipRow {
  id: number | string;
  user_id: number | string | null;
  invited_email: string | null;
  invited_by_user_id: number | string | null;
  team_id: number | string | null;
  organization_id: number | string | null;
  role: string;
  accepted: boolean;
  custom_role_id: string | null;
  disable_impersonation: boolean;
  created_at: Date;
  updated_at: Date;
  user_email: string | null;
  user_avatar_url: string | null;
  user_username: string | null;
  user_name: string | null;
  user_bio: string | null;
  user_metadata: Record<string, unknown> | string | null;
}

const COLUMNS = [
  'm.id',
  'm.user_id',
  'm.invited_email',
  'm.invited_by_user_id',
  'm.team_id',
  'm.organization_id',
  'm.role',
  'm.accepted',
  'm.custom_role_id',
  'm.disable_impersonation',
  'm.created_at',
  'm.updated_at',
  'u.email as user_email',
  'u.avatar_url as user_avatar_url',
  'u.username as user_username',
  'u.name as user_name',
  'u.bio as user_bio',
  'u.metadata as user_metadata',
];

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

function mapMembership(row: MembershipRow): Membership {
  const metadata = typeof row.user_metadata === 'string' ? JSON.parse(row.user_metadata) : row.user_metadata;
  return {
    id: Number(row.id),
    userId: num(row.user_id),
    invitedEmail: row.invited_email,
    invitedByUserId: num(row.invited_by_user_id),
    teamId: num(row.team_id),
    organizationId: num(row.organization_id),
    role: row.role as Role,
    accepted: row.accepted,
    customRoleId: row.custom_role_id,
    disableImpersonation: row.disable_impersonation,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    user:
      row.user_email === null
        ? null
        : {
            email: row.user_email,
            avatarUrl: row.user_avatar_url,
            username: row.user_username,
            name: row.user_name,
            bio: row.user_bio,
            metadata: (metadata ?? {}) as Record<string, unknown>,
          },
  };
}

const parentColumn = (parent: MembershipParent): 'm.team_id' | 'm.organization_id' =>
  parent.kind === 'team' ? 'm.team_id' : 'm.organization_id';

const base = (knex: Knex) => knex('memberships as m').leftJoin('users as u', 'u.id', 'm.user_id');

/**
 * Who writes a membership's audit event and under which action (`membership.invited`, `.added`,
 * `.provisioned`, `.updated`, `.removed`, `.left`, `invitation.accepted`, `.declined`). Without a
 * context the actor is the system.
 */
export interface MembershipAudit {
  audit?: AuditContext | undefined;
  action?: string | undefined;
}

/** What an event shows of a membership: ids, role and state, never the member's address or name. */
export const membershipAuditView = (membership: Membership) => ({
  userId: membership.userId,
  invitedByEmail: membership.userId === null,
  organizationId: membership.organizationId,
  teamId: membership.teamId,
  role: membership.role,
  customRoleId: membership.customRoleId,
  accepted: membership.accepted,
});

/** The organization an event about this parent belongs to: itself, or a team's organization (or none). */
export async function organizationOfParent(knex: Knex, parent: MembershipParent): Promise<number | null> {
  if (parent.kind === 'organization') return parent.id;
  const row = (await knex('teams').where('id', parent.id).first('organization_id')) as
    | { organization_id: number | string | null }
    | undefined;
  return num(row?.organization_id ?? null);
}

export async function recordMembershipEvent(
  trx: Knex,
  parent: MembershipParent,
  audited: MembershipAudit,
  action: string,
  membershipId: number,
  views: { before?: unknown; after?: unknown; details?: Record<string, unknown> },
): Promise<void> {
  await recordAuditEvent(trx, audited.audit, {
    action: audited.action ?? action,
    targetType: 'membership',
    targetId: membershipId,
    organizationId: await organizationOfParent(trx, parent),
    ...views,
  });
}

export const membershipKind = (parent: MembershipParent): RecordKind =>
  parent.kind === 'team' ? 'teamMembership' : 'organizationMembership';

/** The membership with this id under this organization or team, or null (another parent's id too). */
export async function findMembership(
  knex: Knex,
  parent: MembershipParent,
  membershipId: number,
): Promise<Membership | null> {
  if (!Number.isSafeInteger(membershipId)) return null;
  const row = (await base(knex)
    .where('m.id', membershipId)
    .where(parentColumn(parent), parent.id)
    .first(COLUMNS)) as MembershipRow | undefined;
  return row ? mapMembership(row) : null;
}

/** The user's membership in this organization or team, or null. */
export async function findMembershipOfUser(
  knex: Knex,
  parent: MembershipParent,
  userId: number,
): Promise<Membership | null> {
  const row = (await base(knex)
    .where('m.user_id', userId)
    .where(parentColumn(parent), parent.id)
    .first(COLUMNS)) as MembershipRow | undefined;
  return row ? mapMembership(row) : null;
}

/**
 * Locks the membership FOR SHARE until the transaction ends, so that nobody deletes it (removals
 * lock FOR UPDATE) while something that depends on it is made.
 */
export async function lockMembershipForShare(trx: Knex, membershipId: number): Promise<void> {
  await trx('memberships').where('id', membershipId).forShare().first('id');
}

/** Memberships of the organization or team, oldest first (by id). */
export async function listMemberships(
  knex: Knex,
  parent: MembershipParent,
  page: { skip: number; take: number },
): Promise<Membership[]> {
  const rows = (await base(knex)
    .where(parentColumn(parent), parent.id)
    .orderBy('m.id', 'asc')
    .offset(page.skip)
    .limit(page.take)
    .select(COLUMNS)) as MembershipRow[];
  return rows.map(mapMembership);
}

export interface NewMembership {
  parent: MembershipParent;
  /** The member: a user, or (an invitation nobody has accepted yet) an e-mail address. */
  member: { userId: number } | { email: string };
  role: Role;
  accepted: boolean;
  customRoleId?: string | null;
  invitedByUserId?: number | null;
}

const INVITED_EMAIL_INDEXES = [
  'memberships_invited_email_team_unique',
  'memberships_invited_email_organization_unique',
];

/**
 * Creates a membership. Already a member, or already invited at that address:
 * DuplicateRecordError (field `user` or `email`); the user gone: RecordNotFoundError('user').
 */
export async function createMembership(
  knex: Knex,
  versions: VersionBumper,
  input: NewMembership,
  audited: MembershipAudit = {},
): Promise<Membership> {
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    let id: number;
    try {
      const [row] = (await trx('memberships')
        .insert({
          user_id: 'userId' in input.member ? input.member.userId : null,
          invited_email: 'email' in input.member ? input.member.email.trim() : null,
          invited_by_user_id: input.invitedByUserId ?? null,
          team_id: input.parent.kind === 'team' ? input.parent.id : null,
          organization_id: input.parent.kind === 'organization' ? input.parent.id : null,
          role: input.role,
          accepted: input.accepted,
          custom_role_id: input.customRoleId ?? null,
        })
        .returning('id')) as Array<{ id: number | string }>;
      id = Number(row!.id);
    } catch (error) {
      if (
        isUniqueViolation(error, ['memberships_user_team_unique', 'memberships_user_organization_unique'])
      ) {
        throw new DuplicateRecordError(membershipKind(input.parent), 'user');
      }
      if (isUniqueViolation(error, INVITED_EMAIL_INDEXES)) {
        throw new DuplicateRecordError(membershipKind(input.parent), 'email');
      }
      // The user (or the parent) was deleted meanwhile.
      if (isForeignKeyViolation(error)) throw new RecordNotFoundError('user');
      throw error;
    }
    const membership = (await findMembership(trx, input.parent, id))!;
    await recordMembershipEvent(
      trx,
      input.parent,
      audited,
      membership.accepted ? 'membership.added' : 'membership.invited',
      id,
      { after: membershipAuditView(membership) },
    );
    await bumpParent(trx, bumper, input.parent);
    return membership;
  });
}

/**
 * The membership of the regular account with this e-mail address, or else the invitation to that
 * address, in this organization or team; null when there is neither.
 */
export async function findMembershipByEmail(
  knex: Knex,
  parent: MembershipParent,
  email: string,
): Promise<Membership | null> {
  const address = email.trim();
  const row = (await base(knex)
    .where(parentColumn(parent), parent.id)
    .where((where) =>
      where
        .where((account) =>
          account.whereRaw('lower(u.email) = lower(?)', [address]).whereNull('u.managed_by_client_id'),
        )
        .orWhereRaw('lower(m.invited_email) = lower(?)', [address]),
    )
    .orderByRaw('m.user_id is null')
    .first(COLUMNS)) as MembershipRow | undefined;
  return row ? mapMembership(row) : null;
}

/**
 * Whether two users both hold an accepted membership of one organization or team: the only way
 * one may name the other by id (nobody browses a directory of accounts).
 */
export async function shareAcceptedMembership(
  knex: Knex,
  userId: number,
  otherUserId: number,
): Promise<boolean> {
  if (!Number.isSafeInteger(otherUserId)) return false;
  const row = await knex('memberships as mine')
    .join('memberships as theirs', function sameParent() {
      this.on('theirs.team_id', 'mine.team_id').orOn('theirs.organization_id', 'mine.organization_id');
    })
    .where({
      'mine.user_id': userId,
      'mine.accepted': true,
      'theirs.user_id': otherUserId,
      'theirs.accepted': true,
    })
    .first(knex.raw('1 as shared'));
  return row !== undefined;
}

/** How many accepted OWNER memberships the organization or team has, not counting `exceptMembershipId`. */
export async function countAcceptedOwners(
  knex: Knex,
  parent: MembershipParent,
  exceptMembershipId?: number,
): Promise<number> {
  const query = knex('memberships as m')
    .where(parentColumn(parent), parent.id)
    .where('m.role', 'OWNER')
    .where('m.accepted', true);
  if (exceptMembershipId !== undefined) query.whereNot('m.id', exceptMembershipId);
  const row = (await query.count<{ count: number | string }[]>({ count: '*' }).first()) as
    | { count: number | string }
    | undefined;
  return Number(row?.count ?? 0);
}

/**
 * The organization shown as a user's `organizationId`: that of their oldest accepted organization
 * membership, or null.
 */
export async function findPrimaryOrganizationId(knex: Knex, userId: number): Promise<number | null> {
  const row = (await knex('memberships')
    .where({ user_id: userId, accepted: true })
    .whereNotNull('organization_id')
    .orderBy('id', 'asc')
    .first('organization_id')) as { organization_id: number | string } | undefined;
  return row ? Number(row.organization_id) : null;
}

/** Roles of the user's accepted memberships, organizations and teams apart (who may grant which scopes). */
export async function findAcceptedMembershipRoles(
  knex: Knex,
  userId: number,
): Promise<{ organizationRoles: Role[]; teamRoles: Role[] }> {
  const rows = (await knex('memberships')
    .where({ user_id: userId, accepted: true })
    .select('organization_id', 'role')) as Array<{ organization_id: number | string | null; role: Role }>;
  return {
    organizationRoles: rows.filter((row) => row.organization_id !== null).map((row) => row.role),
    teamRoles: rows.filter((row) => row.organization_id === null).map((row) => row.role),
  };
}
