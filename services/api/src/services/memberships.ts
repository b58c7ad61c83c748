import { accessVersionKey } from '@sched/db/queries/access-facts';
import {
  countAcceptedOwners,
  createMembership,
  deleteMembership,
  deleteOrganizationMembership,
  findMembership,
  findMembershipOfUser,
  type Membership,
  type MembershipParent,
  type MembershipPatch,
  updateMembership,
} from '@sched/db/queries/memberships';
import { findOrganizationById } from '@sched/db/queries/organizations';
import { findRole } from '@sched/db/queries/roles';
import { findTeamById } from '@sched/db/queries/teams';
import { createUser, findUserByEmail, findUserById, type User } from '@sched/db/queries/users';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '@sched/kit/errors';
import {
  checkOrgMembershipRemoval,
  checkRoleAssignment,
  checkTeamMembershipRemoval,
  effectiveOrgRole,
  effectiveTeamRole,
  type RuleResult,
} from '@sched/policy/membership-rules';
import type { Role } from '@sched/policy/roles';
import type { Runtime } from '@sched/runtime/runtime';
import type { RouteCache } from '../auth/access-control.ts';
import { UNKNOWN_VERSION } from '../auth/cache.ts';
import { enforceCallerLimit, userCallerKey } from '../auth/rate-limit.ts';
import type { RouteRateLimit } from '../routing/route.ts';
import type { AccessContext, UserCaller } from '../routing/caller.ts';
import { invalidate } from './invalidate.ts';
import { sendInvitation } from './invitations.ts';

/**
 * The membership service shared by the three families of membership routes
 * (/organizations/:orgId/memberships, /organizations/:orgId/teams/:teamId/memberships,
 * /teams/:teamId/memberships). Access (role / PBAC) was decided by the mount; these functions add
 * the rules of `@sched/policy/membership-rules`, which a PBAC permission never lifts.
 */

const teamInOrganization = (access: AccessContext): boolean =>
  access.team !== null &&
  access.team.organizationId !== null &&
  access.team.organizationId === access.organization?.id;

/** The organization or team the route is about. */
export function parentOf(access: AccessContext): MembershipParent {
  if (access.requirement.level === 'organization')
    return { kind: 'organization', id: access.organization!.id };
  return { kind: 'team', id: access.team!.id };
}

/** The caller's rank for rule checks: org role, or the higher of team role and (org team) org role. */
export function actorRoleOf(access: AccessContext): Role | null {
  if (access.requirement.level === 'organization') return effectiveOrgRole(access.orgMembership);
  return effectiveTeamRole({
    teamMembership: access.teamMembership,
    orgMembership: access.orgMembership,
    teamInOrganization: teamInOrganization(access),
  });
}

function enforce(result: RuleResult): void {
  if (!result.allowed) throw new ForbiddenError(result.reason);
}

/** Version keys to bump after a change of this parent's memberships. */
function keysOf(parent: MembershipParent): string[] {
  return [
    parent.kind === 'organization' ? accessVersionKey.org(parent.id) : accessVersionKey.team(parent.id),
  ];
}

export async function getMembership(
  deps: Runtime,
  access: AccessContext,
  membershipId: number,
): Promise<Membership> {
  const membership = await findMembership(deps.stores.db.knex, parentOf(access), membershipId);
  if (!membership) throw new NotFoundError('Membership not found');
  return membership;
}

/** Per-app caches of GET one membership: the membership, and which user each membership is of. */
const MEMBERSHIPS = 'memberships';
const MEMBERSHIP_USERS = 'membership-users';
/** Shorter than the default safety net: the member's profile may be changed by writers that do not bump `user:<id>`. */
const MEMBERSHIP_MAX_AGE_MS = 60_000;

/** The member's `user:<id>` (known once the membership was read), to read with the credential. */
export function membershipVersionKeys(
  params: Record<string, string | undefined>,
  cache: RouteCache,
): string[] {
  const userId = cache.permanent<number>(MEMBERSHIP_USERS).get(params['membershipId'] ?? '');
  return userId === undefined ? [] : [accessVersionKey.user(userId)];
}

/** Version keys of the memberships of the route's parent: its own, and for an org team the org's. */
function parentVersionKeys(access: AccessContext): string[] {
  if (access.requirement.level === 'organization') return [accessVersionKey.org(access.organization!.id)];
  const keys = [accessVersionKey.team(access.team!.id)];
  if (teamInOrganization(access)) keys.push(accessVersionKey.org(access.team!.organizationId!));
  return keys;
}

/**
 * GET one membership, served from the per-app cache while the versions of its parent (team and
 * organization) and of the member (`user:<id>`, for the profile shown) are unchanged. A hit is
 * answered synchronously.
 */
export function getMembershipCached(
  deps: Runtime,
  access: AccessContext,
  membershipId: number,
  versions: ReadonlyMap<string, number>,
  cache: RouteCache,
): Membership | Promise<Membership> {
  const users = cache.permanent<number>(MEMBERSHIP_USERS);
  const memberships = cache.versioned<Membership>(MEMBERSHIPS, { maxAgeMs: MEMBERSHIP_MAX_AGE_MS });
  const knownUserId = users.get(String(membershipId));
  const parentTags = parentVersionKeys(access).map((key) => versions.get(key) ?? UNKNOWN_VERSION);
  const userTag =
    knownUserId === undefined
      ? UNKNOWN_VERSION
      : (versions.get(accessVersionKey.user(knownUserId)) ?? UNKNOWN_VERSION);
  const parent = parentOf(access);
  const key = `${parent.kind}:${parent.id}:${membershipId}`;
  const hit = memberships.get(key, [...parentTags, userTag]);
  if (hit) return hit;
  return getMembership(deps, access, membershipId).then((membership) => {
    users.set(String(membershipId), membership.userId);
    memberships.set(key, membership, [
      ...parentTags,
      membership.userId === knownUserId ? userTag : UNKNOWN_VERSION,
    ]);
    return membership;
  });
}

/** Invitation e-mails per inviter (API key or token alike). */
export const INVITATIONS_LIMIT: RouteRateLimit = {
  name: 'invitations',
  what: 'invitations sent',
  max: 100,
  windowSeconds: 3600,
};

export type NewMembershipInput =
  | { userId: number; role: Role; accepted?: boolean | undefined }
  | { email: string; role: Role };

/**
 * Create (`userId`) or invite by e-mail (`email`: accepted false, an invitation e-mail is sent; a
 * user without an account gets a password-less one they complete by signing up). Members of an
 * organization's team must be members of the organization (pending is enough).
 */
export async function addMembership(
  deps: Runtime,
  access: AccessContext,
  caller: UserCaller,
  input: NewMembershipInput,
): Promise<Membership> {
  const knex = deps.stores.db.knex;
  const parent = parentOf(access);
  const invite = 'email' in input;
  let user: User | null = invite
    ? await findUserByEmail(knex, input.email)
    : await findUserById(knex, input.userId);
  if (!user && !invite) throw new NotFoundError('User not found');
  enforce(
    checkRoleAssignment({
      actorRole: actorRoleOf(access),
      self: user !== null && user.id === caller.userId,
      currentRole: null,
      newRole: input.role,
    }),
  );
  const organizationOfTeam = parent.kind === 'team' ? access.team!.organizationId : null;
  if (organizationOfTeam !== null) {
    const orgMember =
      user !== null &&
      (await findMembershipOfUser(knex, { kind: 'organization', id: organizationOfTeam }, user.id));
    if (!orgMember) {
      const field = invite ? 'body.email' : 'body.userId';
      throw new BadRequestError(
        'The user must be a member of the organization first (an invitation is enough)',
        [{ field, message: 'not a member of the organization' }],
      );
    }
  }
  // Each invitation e-mails an address the caller chose: bounded per inviter, before anything is made.
  if (invite) {
    await enforceCallerLimit(INVITATIONS_LIMIT, userCallerKey(caller.userId), deps);
  }
  if (!user) user = await createInvitedUser(deps, (input as { email: string }).email);
  const membership = await createMembership(knex, {
    parent,
    userId: user.id,
    role: input.role,
    accepted: invite ? false : (input.accepted ?? false),
  });
  await invalidate(deps, keysOf(parent));
  if (invite) await sendInvitationFor(deps, parent, user, caller, membership.role);
  return membership;
}

async function createInvitedUser(deps: Runtime, email: string): Promise<User> {
  try {
    return await createUser(deps.stores.db.knex, { email, password: null });
  } catch (error) {
    // Created concurrently by someone else: use theirs.
    if (!(error instanceof ConflictError)) throw error;
    const raced = await findUserByEmail(deps.stores.db.knex, email);
    if (!raced) throw error;
    return raced;
  }
}

async function sendInvitationFor(
  deps: Runtime,
  parent: MembershipParent,
  invitee: User,
  caller: UserCaller,
  role: Role,
): Promise<void> {
  const knex = deps.stores.db.knex;
  const [target, inviter] = await Promise.all([
    parent.kind === 'organization' ? findOrganizationById(knex, parent.id) : findTeamById(knex, parent.id),
    findUserById(knex, caller.userId),
  ]);
  await sendInvitation(deps, {
    to: invitee.email,
    kind: parent.kind,
    name: target?.name ?? `${parent.kind} ${parent.id}`,
    role,
    inviterName: inviter?.name ?? inviter?.email ?? null,
    hasAccount: invitee.onboardingStep === 'complete',
  });
}

export interface MembershipChange {
  role?: Role | undefined;
  accepted?: boolean | undefined;
  customRoleId?: string | null | undefined;
}

/**
 * PATCH: role-assignment rules (never above your own role, never a higher member, admins never
 * create or change owners); a custom role must be a custom role of the organization; nobody but
 * an owner changes their own custom role; the last accepted owner keeps the owner role.
 */
export async function changeMembership(
  deps: Runtime,
  access: AccessContext,
  caller: UserCaller,
  membershipId: number,
  change: MembershipChange,
): Promise<Membership> {
  const knex = deps.stores.db.knex;
  const parent = parentOf(access);
  const target = await getMembership(deps, access, membershipId);
  const actorRole = actorRoleOf(access);
  const self = target.userId === caller.userId;
  enforce(checkRoleAssignment({ actorRole, self, currentRole: target.role, newRole: change.role ?? null }));
  const patch: MembershipPatch = {};
  if (change.role !== undefined) patch.role = change.role;
  if (change.accepted !== undefined) patch.accepted = change.accepted;
  if (change.customRoleId !== undefined) {
    if (self && actorRole !== 'OWNER' && change.customRoleId !== target.customRoleId) {
      throw new ForbiddenError('You cannot change the custom role of your own membership');
    }
    if (change.customRoleId !== null) await requireAssignableRole(deps, access, change.customRoleId);
    patch.customRoleId = change.customRoleId;
  }
  if (target.role === 'OWNER' && change.role !== undefined && change.role !== 'OWNER' && target.accepted) {
    if ((await countAcceptedOwners(knex, parent, target.id)) === 0) {
      throw new ConflictError(`The ${parent.kind} must keep at least one owner`);
    }
  }
  const updated = await updateMembership(knex, parent, membershipId, patch);
  if (!updated) throw new NotFoundError('Membership not found');
  await invalidate(deps, keysOf(parent));
  return updated;
}

/** A custom role of the organization the membership belongs to (404 for another's; 400 for a system role). */
async function requireAssignableRole(deps: Runtime, access: AccessContext, roleId: string): Promise<void> {
  const organizationId =
    access.requirement.level === 'organization' ? access.organization!.id : access.team!.organizationId;
  if (organizationId === null) {
    throw new BadRequestError('Teams outside an organization have no custom roles', [
      { field: 'body.customRoleId', message: 'custom roles need an organization' },
    ]);
  }
  const role = await findRole(deps.stores.db.knex, organizationId, roleId);
  if (!role) throw new NotFoundError('Role not found');
  if (role.type === 'SYSTEM') {
    throw new BadRequestError('System roles cannot be assigned as a custom role; set `role` instead', [
      { field: 'body.customRoleId', message: 'must be a custom role' },
    ]);
  }
}

/**
 * DELETE: team memberships follow the team-owner removal rules (only a team owner removes another
 * owner, org admins and owners may, nobody removes their own owner membership) and the rank rule;
 * organization memberships the rank rule and "an owner does not remove themselves". Leaving an
 * organization also removes the user's memberships of its teams.
 */
export async function removeMembership(
  deps: Runtime,
  access: AccessContext,
  caller: UserCaller,
  membershipId: number,
): Promise<Membership> {
  const knex = deps.stores.db.knex;
  const parent = parentOf(access);
  const target = await getMembership(deps, access, membershipId);
  const self = target.userId === caller.userId;
  if (parent.kind === 'organization') {
    enforce(
      checkOrgMembershipRemoval({
        actorOrgRole: effectiveOrgRole(access.orgMembership),
        targetRole: target.role,
        self,
      }),
    );
    if (!(await deleteOrganizationMembership(knex, parent.id, membershipId)))
      throw new NotFoundError('Membership not found');
  } else {
    enforce(
      checkTeamMembershipRemoval({
        actorTeamRole: access.teamMembership?.accepted ? access.teamMembership.role : null,
        actorOrgRole: teamInOrganization(access) ? effectiveOrgRole(access.orgMembership) : null,
        targetRole: target.role,
        self,
      }),
    );
    if (!(await deleteMembership(knex, parent, membershipId)))
      throw new NotFoundError('Membership not found');
  }
  await invalidate(deps, keysOf(parent));
  return target;
}
