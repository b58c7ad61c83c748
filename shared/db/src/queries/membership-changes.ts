import type { RuleResult } from '@sched/policy/membership-rules';
import type { Role } from '@sched/policy/roles';
import type { Knex } from 'knex';
import { type RecordKind, RuleRefusedError } from '../errors.ts';
import { transactionWithBumps, type VersionBumper } from '../versions.ts';
import type { MembershipFact } from './access-facts.ts';
import {
  bumpParent,
  countAcceptedOwners,
  findMembership,
  findMembershipOfUser,
  type Membership,
  type MembershipAudit,
  type MembershipParent,
  membershipAuditView,
  membershipKind,
  organizationOfParent,
  recordMembershipEvent,
} from './memberships.ts';

/**
 * Changes and removals of memberships, each judged on the rows it locks: the caller's rule (a
 * `RemovalGuard`) sees the membership, the remover's or changer's own memberships and the parent's
 * owners as they are under the lock, so concurrent role changes and removals cannot both pass a rule
 * that only one of them may (docs/decisions.md, "The removal rules are judged on the rows the
 * delete removes, locked"). Reads and creation are in `./memberships.ts`.
 */
/** Fields a PATCH may change; undefined leaves a field alone, null clears customRoleId. */
export interface MembershipPatch {
  role?: Role;
  customRoleId?: string | null;
}

/** What a change of a membership sees, as it locked it, for its guard. */
export interface MembershipChangeFacts {
  /** The membership before the change. */
  membership: Membership;
  /** Accepted owners of the parent other than this membership (the last-owner rule). */
  otherOwners: number;
  /**
   * The changer's memberships as locked, with their custom roles' permissions as locked (their
   * rank, what the route lets them do, what they may grant), when `locks.removerUserId` names them.
   */
  changer: RemovalContext['remover'];
  /** The parent's organization as locked (its PBAC switch), when `locks.removerUserId` is given. */
  organization: LockedOrganization | null;
  /** The permissions of the custom role the patch assigns, as locked; null when none (or it is gone). */
  assigned: string[] | null;
}

/**
 * Applies the patch (with its `membership.updated` event, only when a value changed); null when the
 * membership is not under this parent. `guard` judges the membership and the parent's other
 * accepted owners as locked, so two owners demoting each other at once, or a demotion racing an
 * owner's removal, cannot both pass the last-owner rule (RuleRefusedError when it refuses); with
 * `locks.removerUserId` the changer's own memberships are locked and judged too (their rank), and
 * so are their custom roles, the one assigned and the organization's PBAC switch (see lockStanding).
 */
export async function updateMembership(
  knex: Knex,
  versions: VersionBumper,
  parent: MembershipParent,
  membershipId: number,
  patch: MembershipPatch,
  audited: MembershipAudit = {},
  guard?: RemovalGuard<MembershipChangeFacts>,
  locks: Pick<RemovalLocks, 'removerUserId'> = {},
): Promise<Membership | null> {
  const changes: Record<string, unknown> = {};
  if (patch.role !== undefined) changes['role'] = patch.role;
  if (patch.customRoleId !== undefined) changes['custom_role_id'] = patch.customRoleId;
  if (Object.keys(changes).length === 0 || !Number.isSafeInteger(membershipId)) {
    return findMembership(knex, parent, membershipId);
  }
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    // The before view is read under the row locks, in the change's transaction: the membership's
    // and, for a guard, the parent's accepted owners' and the changer's own, taken in id order as
    // a removal takes them.
    const locked: RemovalLocks = { ...locks, owners: guard !== undefined };
    const organization = guard ? await lockStanding(trx, parent, locked, [patch.customRoleId]) : null;
    await lockForRemoval(trx, parent, membershipId, locked);
    const before = await findMembership(trx, parent, membershipId);
    if (!before) return null;
    if (guard) {
      const { context, permissions } = await removalContext(trx, parent, membershipId, locked, organization, [
        patch.customRoleId,
      ]);
      guarded(membershipKind(parent), guard, {
        membership: before,
        otherOwners: context.otherOwners!,
        changer: context.remover,
        organization: context.organization,
        assigned: (patch.customRoleId && permissions.get(patch.customRoleId)) || null,
      });
    }
    // A value the membership already has changes nothing: no write, no event, no bump.
    if (changes['role'] === before.role) delete changes['role'];
    if (changes['custom_role_id'] === before.customRoleId) delete changes['custom_role_id'];
    if (Object.keys(changes).length === 0) return before;
    changes['updated_at'] = trx.fn.now();
    await trx('memberships').where({ id: membershipId }).update(changes);
    const after = (await findMembership(trx, parent, membershipId))!;
    await recordMembershipEvent(trx, parent, audited, 'membership.updated', membershipId, {
      before: { role: before.role, customRoleId: before.customRoleId },
      after: { role: after.role, customRoleId: after.customRoleId },
      details: { userId: after.userId },
    });
    await bumpParent(trx, bumper, parent);
    return after;
  });
}

/**
 * A rule a removal must pass, judged on what it removes as locked in its own transaction (a role
 * changed meanwhile is seen; one changing after waits for the removal): a refusal is thrown as
 * RuleRefusedError and nothing is removed.
 */
export type RemovalGuard<Facts> = (facts: Facts) => RuleResult;

function guarded<Facts>(kind: RecordKind, guard: RemovalGuard<Facts> | undefined, facts: Facts): void {
  const verdict = guard?.(facts);
  if (verdict && !verdict.allowed) throw new RuleRefusedError(kind, verdict.reason);
}

/** The organization of a removal's or change's parent, as locked FOR SHARE (see lockStanding). */
export interface LockedOrganization {
  id: number;
  pbacEnabled: boolean;
}

/** The user's own memberships of the parent and, for a team, of its organization. */
const ownMemberships =
  (trx: Knex, parent: MembershipParent, userId: number) =>
  (mine: Knex.QueryBuilder): void => {
    const column = parent.kind === 'team' ? 'team_id' : 'organization_id';
    mine.where({ user_id: userId, [column]: parent.id });
    if (parent.kind === 'team') {
      mine.orWhere((ofOrganization) =>
        ofOrganization
          .where('user_id', userId)
          .whereIn('organization_id', trx('teams').select('organization_id').where('id', parent.id)),
      );
    }
  };

/**
 * What a write judged on the caller's own standing locks before the memberships: the row of the
 * parent's organization FOR SHARE (its PBAC switch: a change of the organization, which locks
 * nothing else, waits for the write, or the write for it), then the custom roles of the caller's
 * memberships as read now and `roleIds`, FOR SHARE (every edit of a role's permissions holds that
 * role's row lock). Roles before memberships, as a role's deletion takes them (the role, then the
 * memberships it is taken off), so the two wait for each other instead of deadlocking; a role given
 * the caller meanwhile is locked after the memberships (removalContext). Without
 * `locks.removerUserId`, only `roleIds`; the organization is then not locked (null).
 */
async function lockStanding(
  trx: Knex,
  parent: MembershipParent,
  locks: RemovalLocks,
  roleIds: ReadonlyArray<string | null | undefined> = [],
): Promise<LockedOrganization | null> {
  if (locks.removerUserId === undefined) {
    await lockRoles(trx, roleIds);
    return null;
  }
  const organizationId =
    parent.kind === 'organization'
      ? parent.id
      : trx('teams').select('organization_id').where('id', parent.id);
  const row = (await trx('organizations')
    .where('id', organizationId)
    .forShare()
    .first('id', 'pbac_enabled')) as { id: number | string; pbac_enabled: boolean } | undefined;
  await lockRoles(trx, [...(await customRolesOf(trx, parent, locks.removerUserId)), ...roleIds]);
  return row ? { id: Number(row.id), pbacEnabled: row.pbac_enabled } : null;
}

/** The custom roles of the user's own memberships (see ownMemberships), unlocked. */
async function customRolesOf(trx: Knex, parent: MembershipParent, userId: number): Promise<string[]> {
  return (await trx('memberships')
    .where(ownMemberships(trx, parent, userId))
    .whereNotNull('custom_role_id')
    .pluck('custom_role_id')) as string[];
}

/**
 * Locks these roles FOR SHARE (a lock this transaction holds already is kept); the ids of those
 * that exist.
 */
async function lockRoles(trx: Knex, roleIds: ReadonlyArray<string | null | undefined>): Promise<string[]> {
  const wanted = [...new Set(roleIds.filter((id): id is string => typeof id === 'string'))];
  if (wanted.length === 0) return [];
  return (await trx('roles').whereIn('id', wanted).orderBy('id').forShare().pluck('id')) as string[];
}

/**
 * Locks these roles (lockRoles) and reads their permissions, sorted as the access facts list them;
 * a role that is gone is left out.
 */
async function lockedRolePermissions(
  trx: Knex,
  roleIds: ReadonlyArray<string | null | undefined>,
): Promise<Map<string, string[]>> {
  const permissions = new Map<string, string[]>();
  const roles = await lockRoles(trx, roleIds);
  for (const id of roles) permissions.set(id, []);
  if (roles.length === 0) return permissions;
  const rows = (await trx('role_permissions')
    .whereIn('role_id', roles)
    .orderBy('permission')
    .select('role_id', 'permission')) as Array<{ role_id: string; permission: string }>;
  for (const row of rows) permissions.get(row.role_id)!.push(row.permission);
  return permissions;
}

/**
 * Rows a removal locks besides those it deletes, so that its rule is judged on them as they are:
 * the remover's own memberships (their rank; two owners removing each other at once must not both
 * succeed) with their custom roles and the parent's organization (what the route lets them do), and
 * the parent's accepted owners (the last-owner rule).
 */
export interface RemovalLocks {
  removerUserId?: number | undefined;
  owners?: boolean | undefined;
}

/** What the extra locks saw (see RemovalLocks). */
export interface RemovalContext {
  /**
   * The remover's memberships, with their custom roles' permissions, as locked: of the
   * organization, and, removing from a team, of that team; null where there is none (any longer).
   */
  remover: { organization: MembershipFact | null; team: MembershipFact | null };
  /** The parent's organization as locked (its PBAC switch); null without `removerUserId`. */
  organization: LockedOrganization | null;
  /** Accepted owners of the parent other than the membership removed; null unless `owners` was asked. */
  otherOwners: number | null;
}

/** What removing a team (or organization) membership takes away, as a RemovalGuard sees it. */
export interface MembershipRemovalFacts extends RemovalContext {
  membership: Membership;
}

/**
 * Locks, in one statement and in id order (so that removals and changes locking overlapping rows
 * wait for each other instead of deadlocking), the membership removed (or changed), the rows
 * `locks` asks for, and `also`.
 * The caller then reads them under the lock.
 */
async function lockForRemoval(
  trx: Knex,
  parent: MembershipParent,
  membershipId: number,
  locks: RemovalLocks,
  also?: (where: Knex.QueryBuilder) => void,
): Promise<void> {
  const column = parent.kind === 'team' ? 'team_id' : 'organization_id';
  await trx('memberships')
    .where((where) => {
      where.where({ id: membershipId, [column]: parent.id });
      if (locks.removerUserId !== undefined) {
        where.orWhere(ownMemberships(trx, parent, locks.removerUserId));
      }
      if (locks.owners)
        where.orWhere((owners) => owners.where({ [column]: parent.id, role: 'OWNER', accepted: true }));
      also?.(where);
    })
    .orderBy('id')
    .forUpdate()
    .select('id');
}

/**
 * Reads, under the locks lockStanding and lockForRemoval took, what they guard; `permissions` has
 * those of the remover's custom roles and of `roleIds`, as locked.
 */
async function removalContext(
  trx: Knex,
  parent: MembershipParent,
  membershipId: number,
  locks: RemovalLocks,
  organization: LockedOrganization | null,
  roleIds: ReadonlyArray<string | null | undefined> = [],
): Promise<{ context: RemovalContext; permissions: Map<string, string[]> }> {
  const userId = locks.removerUserId;
  let mine: { organization: Membership | null; team: Membership | null } = { organization: null, team: null };
  if (userId !== undefined) {
    const organizationId = organization?.id ?? (await organizationOfParent(trx, parent));
    mine = {
      organization:
        organizationId === null
          ? null
          : await findMembershipOfUser(trx, { kind: 'organization', id: organizationId }, userId),
      team: parent.kind === 'team' ? await findMembershipOfUser(trx, parent, userId) : null,
    };
  }
  const permissions = await lockedRolePermissions(trx, [
    mine.organization?.customRoleId,
    mine.team?.customRoleId,
    ...roleIds,
  ]);
  const fact = (found: Membership | null): MembershipFact | null =>
    found && {
      id: found.id,
      role: found.role,
      accepted: found.accepted,
      customRoleId: found.customRoleId,
      permissions: (found.customRoleId !== null && permissions.get(found.customRoleId)) || [],
    };
  return {
    context: {
      remover: { organization: fact(mine.organization), team: fact(mine.team) },
      organization,
      otherOwners: locks.owners ? await countAcceptedOwners(trx, parent, membershipId) : null,
    },
    permissions,
  };
}

/**
 * Deletes the membership (with its `membership.removed` event); false when it is not under this
 * parent. `guard` judges the membership, and what `locks` asks for, as locked (RuleRefusedError
 * when it refuses).
 */
export async function deleteMembership(
  knex: Knex,
  versions: VersionBumper,
  parent: MembershipParent,
  membershipId: number,
  audited: MembershipAudit = {},
  guard?: RemovalGuard<MembershipRemovalFacts>,
  locks: RemovalLocks = {},
): Promise<boolean> {
  if (!Number.isSafeInteger(membershipId)) return false;
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    const organization = await lockStanding(trx, parent, locks);
    await lockForRemoval(trx, parent, membershipId, locks);
    const before = await findMembership(trx, parent, membershipId);
    if (!before) return false;
    const { context } = await removalContext(trx, parent, membershipId, locks, organization);
    guarded(membershipKind(parent), guard, { membership: before, ...context });
    await trx('memberships').where({ id: membershipId }).delete();
    await recordMembershipEvent(trx, parent, audited, 'membership.removed', membershipId, {
      before: membershipAuditView(before),
    });
    await bumpParent(trx, bumper, parent);
    return true;
  });
}

/** What removing an organization membership takes away, as a RemovalGuard sees it. */
export interface OrganizationRemovalFacts extends MembershipRemovalFacts {
  /** The member's memberships and invitations of the organization's teams, which go along. */
  teamMemberships: Array<{ id: number; teamId: number; role: Role; accepted: boolean }>;
}

/** The member's memberships (and invitations) of the organization's teams. */
const teamMembershipsOf = (
  trx: Knex,
  organizationId: number,
  member: Pick<Membership, 'userId' | 'invitedEmail'>,
  where: Knex.QueryBuilder,
) => {
  where.whereIn('team_id', trx('teams').select('id').where('organization_id', organizationId));
  if (member.userId !== null) where.where('user_id', member.userId);
  else where.whereRaw('lower(invited_email) = lower(?)', [member.invitedEmail]);
};

/**
 * Deletes an organization membership together with the member's memberships (and invitations) of
 * the organization's teams (leaving an organization means leaving its teams), in one transaction
 * with its event (`membership.removed`, the team memberships in `details`); false when the
 * membership is not in this organization. `guard` judges all of them, and what `locks` asks for,
 * as locked (RuleRefusedError when it refuses); exactly the team memberships it saw go.
 */
export async function deleteOrganizationMembership(
  knex: Knex,
  versions: VersionBumper,
  organizationId: number,
  membershipId: number,
  audited: MembershipAudit = {},
  guard?: RemovalGuard<OrganizationRemovalFacts>,
  locks: RemovalLocks = {},
): Promise<boolean> {
  if (!Number.isSafeInteger(membershipId)) return false;
  const parent: MembershipParent = { kind: 'organization', id: organizationId };
  return transactionWithBumps(knex, versions, async (trx, bumper) => {
    // Whom the membership is of, read before locking to lock their team memberships along with it.
    const seen = await findMembership(trx, parent, membershipId);
    if (!seen) return false;
    const organization = await lockStanding(trx, parent, locks);
    await lockForRemoval(trx, parent, membershipId, locks, (where) =>
      where.orWhere((teams) => teamMembershipsOf(trx, organizationId, seen, teams)),
    );
    const before = await findMembership(trx, parent, membershipId);
    if (!before) return false;
    // Locked again as read now: a no-op but for a member who changed meanwhile (an invitation
    // accepted between the two reads), whose other rows are then locked here.
    const teamRows = (await trx('memberships')
      .where((teams) => teamMembershipsOf(trx, organizationId, before, teams))
      .orderBy('id')
      .forUpdate()
      .select('id', 'team_id', 'role', 'accepted')) as Array<{
      id: number | string;
      team_id: number | string;
      role: Role;
      accepted: boolean;
    }>;
    const teamMemberships = teamRows.map((team) => ({
      id: Number(team.id),
      teamId: Number(team.team_id),
      role: team.role,
      accepted: team.accepted,
    }));
    const { context } = await removalContext(trx, parent, membershipId, locks, organization);
    guarded('organizationMembership', guard, { membership: before, teamMemberships, ...context });
    await trx('memberships').where({ id: membershipId }).delete();
    if (teamMemberships.length > 0) {
      await trx('memberships')
        .whereIn(
          'id',
          teamMemberships.map((team) => team.id),
        )
        .delete();
    }
    // Booking limits are for members of an organization, who alone may read, change or clear them:
    // leaving the last one clears them, or they would go on limiting the user, out of their reach.
    const bookingLimitsCleared =
      before.userId !== null && (await clearLimitsOutsideOrganizations(trx, before.userId));
    await recordMembershipEvent(trx, parent, audited, 'membership.removed', membershipId, {
      before: membershipAuditView(before),
      details: {
        teamMembershipsRemoved: teamMemberships.map(({ id, teamId }) => ({ id, teamId })),
        ...(bookingLimitsCleared && { bookingLimitsCleared: true }),
      },
    });
    // The organization's version also covers the team-level facts of its teams.
    await bumpParent(trx, bumper, parent);
    return true;
  });
}

/** Deletes the user's booking limits unless they still belong to an organization; true when some went. */
async function clearLimitsOutsideOrganizations(trx: Knex, userId: number | string): Promise<boolean> {
  const stillMember = await trx('memberships')
    .where({ user_id: userId, accepted: true })
    .whereNotNull('organization_id')
    .first('id');
  if (stillMember) return false;
  const gone = (await trx('booking_limits')
    .where({ user_id: userId })
    .delete()
    .returning('user_id')) as unknown[];
  return gone.length > 0;
}
