import type { Role } from '@sched/policy/roles';
import type { Knex } from 'knex';
import { DuplicateRecordError, RecordNotFoundError } from '../errors.ts';
import { transactionWithBumps, type VersionBumper } from '../versions.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import {
  bumpParent,
  findMembership,
  type Membership,
  type MembershipParent,
  membershipAuditView,
  membershipKind,
  organizationOfParent,
} from './memberships.ts';
import { isUniqueViolation } from './pg-errors.ts';

/**
 * Pending memberships as their invitee sees them (docs/schema.md, "Invitations"): those of the
 * user, and those sent to the user's e-mail address, once that address is verified, and only for a
 * regular account: a managed user's address is set by its OAuth client and never proved by anyone.
 */
export interface Invitee {
  userId: number;
  email: string;
  emailVerified: boolean;
  /** A managed user of the deprecated family (`managed_by_client_id` set). */
  managed: boolean;
}

export interface Invitation {
  /** The membership's id. */
  id: number;
  kind: 'organization' | 'team';
  organizationId: number | null;
  teamId: number | null;
  /** The name of the organization or team. */
  name: string;
  /** For a team of an organization: that organization. */
  teamOrganizationId: number | null;
  role: Role;
  invitedBy: { name: string | null } | null;
  createdAt: Date;
}

interface InvitationRow {
  id: number | string;
  organization_id: number | string | null;
  team_id: number | string | null;
  role: string;
  created_at: Date;
  organization_name: string | null;
  team_name: string | null;
  team_organization_id: number | string | null;
  inviter_id: number | string | null;
  inviter_name: string | null;
}

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

function mapInvitation(row: InvitationRow): Invitation {
  const kind = row.team_id === null ? 'organization' : 'team';
  return {
    id: Number(row.id),
    kind,
    organizationId: num(row.organization_id),
    teamId: num(row.team_id),
    name: (kind === 'team' ? row.team_name : row.organization_name) ?? '',
    teamOrganizationId: num(row.team_organization_id),
    role: row.role as Role,
    invitedBy: row.inviter_id === null ? null : { name: row.inviter_name },
    createdAt: row.created_at,
  };
}

/** Pending memberships the invitee may answer. */
function visibleTo(knex: Knex, invitee: Invitee) {
  return knex('memberships as m')
    .where('m.accepted', false)
    .where((who) => {
      who.where('m.user_id', invitee.userId);
      if (invitee.emailVerified && !invitee.managed) {
        who.orWhere((byAddress) =>
          byAddress.whereNull('m.user_id').whereRaw('lower(m.invited_email) = lower(?)', [invitee.email]),
        );
      }
    });
}

const INVITATION_COLUMNS = [
  'm.id',
  'm.organization_id',
  'm.team_id',
  'm.role',
  'm.created_at',
  'o.name as organization_name',
  't.name as team_name',
  't.organization_id as team_organization_id',
  'inviter.id as inviter_id',
  'inviter.name as inviter_name',
];

const withNames = (query: Knex.QueryBuilder) =>
  query
    .leftJoin('organizations as o', 'o.id', 'm.organization_id')
    .leftJoin('teams as t', 't.id', 'm.team_id')
    .leftJoin('users as inviter', 'inviter.id', 'm.invited_by_user_id');

/** The invitee's pending invitations, oldest first. */
export async function listInvitations(knex: Knex, invitee: Invitee): Promise<Invitation[]> {
  const rows = (await withNames(visibleTo(knex, invitee))
    .orderBy('m.id', 'asc')
    .select(INVITATION_COLUMNS)) as InvitationRow[];
  return rows.map(mapInvitation);
}

/** One of the invitee's pending invitations, or null (someone else's, answered, or unknown). */
export async function findInvitation(
  knex: Knex,
  invitee: Invitee,
  membershipId: number,
): Promise<Invitation | null> {
  if (!Number.isSafeInteger(membershipId)) return null;
  const row = (await withNames(visibleTo(knex, invitee))
    .where('m.id', membershipId)
    .first(INVITATION_COLUMNS)) as InvitationRow | undefined;
  return row ? mapInvitation(row) : null;
}

export const parentOfInvitation = (invitation: Invitation): MembershipParent =>
  invitation.teamId !== null
    ? { kind: 'team', id: invitation.teamId }
    : { kind: 'organization', id: invitation.organizationId! };

/**
 * Accepts: the membership becomes the invitee's and accepted, with its `invitation.accepted` event.
 * Gone or no longer pending meanwhile: RecordNotFoundError('invitation'); the invitee already holds
 * another membership of that organization or team: DuplicateRecordError.
 */
export async function acceptInvitation(
  knex: Knex,
  versions: VersionBumper,
  invitee: Invitee,
  invitation: Invitation,
  audit?: AuditContext,
): Promise<Membership> {
  const parent = parentOfInvitation(invitation);
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const before = await findMembership(trx, parent, invitation.id);
    try {
      const rows = (await visibleTo(trx, invitee)
        .where('m.id', invitation.id)
        .update({ user_id: invitee.userId, invited_email: null, accepted: true, updated_at: trx.fn.now() })
        .returning('id')) as unknown[];
      if (rows.length === 0 || !before) throw new RecordNotFoundError('invitation');
    } catch (error) {
      if (
        isUniqueViolation(error, ['memberships_user_team_unique', 'memberships_user_organization_unique'])
      ) {
        throw new DuplicateRecordError(membershipKind(parent), 'user');
      }
      throw error;
    }
    const membership = (await findMembership(trx, parent, invitation.id))!;
    await recordAuditEvent(trx, audit, {
      action: 'invitation.accepted',
      targetType: 'membership',
      targetId: invitation.id,
      organizationId: await organizationOfParent(trx, parent),
      before: membershipAuditView(before!),
      after: membershipAuditView(membership),
    });
    await bumpParent(trx, bumper, parent);
    return membership;
  });
}

/**
 * Declines: deletes the invitation, with its `invitation.declined` event; declining an
 * organization's also declines the invitee's pending invitations to its teams (in `details`).
 * False when it was not pending for this invitee.
 */
export async function declineInvitation(
  knex: Knex,
  versions: VersionBumper,
  invitee: Invitee,
  invitation: Invitation,
  audit?: AuditContext,
): Promise<boolean> {
  const parent = parentOfInvitation(invitation);
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const before = await findMembership(trx, parent, invitation.id);
    const rows = (await visibleTo(trx, invitee)
      .where('m.id', invitation.id)
      .delete()
      .returning('id')) as unknown[];
    if (rows.length === 0 || !before) return false;
    let teamInvitations: Array<{ id: number | string; team_id: number | string }> = [];
    if (invitation.kind === 'organization') {
      teamInvitations = (await visibleTo(trx, invitee)
        .whereIn('m.team_id', trx('teams').select('id').where('organization_id', invitation.organizationId!))
        .delete()
        .returning(['id', 'team_id'])) as typeof teamInvitations;
    }
    await recordAuditEvent(trx, audit, {
      action: 'invitation.declined',
      targetType: 'membership',
      targetId: invitation.id,
      organizationId: await organizationOfParent(trx, parent),
      before: membershipAuditView(before),
      details: {
        userId: invitee.userId,
        ...(teamInvitations.length > 0 && {
          teamInvitationsDeclined: teamInvitations.map((row) => ({
            id: Number(row.id),
            teamId: Number(row.team_id),
          })),
        }),
      },
    });
    await bumpParent(trx, bumper, parent);
    return true;
  });
}
