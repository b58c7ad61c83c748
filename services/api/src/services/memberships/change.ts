import type { AuditContext } from '@sched/db/queries/audit-log';
import { RuleRefusedError } from '@sched/db/errors';
import { type MembershipPatch, updateMembership } from '@sched/db/queries/membership-changes';
import type { Membership } from '@sched/db/queries/memberships';
import { findRole } from '@sched/db/queries/roles';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '@sched/kit/errors';
import { checkRoleAssignment } from '@sched/policy/membership-rules';
import type { Role } from '@sched/policy/roles';
import type { Runtime } from '@sched/runtime/runtime';
import type { AccessContext, UserCaller } from '../../routing/caller.ts';
import { checkGrantable, requireGrantable } from '../permissions.ts';
import {
  actorRoleFrom,
  actorRoleOf,
  checkLockedAccess,
  enforce,
  type MembershipReadRequirement,
  parentOf,
  requireReadAccess,
} from './context.ts';
import { MUST_ACCEPT } from './invite.ts';
import { getMembership, MEMBERSHIP_NOT_FOUND } from './read-cache.ts';

export interface MembershipChange {
  role?: Role | undefined;
  accepted?: boolean | undefined;
  customRoleId?: string | null | undefined;
}

/**
 * PATCH: role-assignment rules (never above your own role, never a higher member, admins never
 * create or change owners); `accepted` is the invitee's alone (they answer through their
 * invitations), so any change of it here is refused; a custom role must be a custom role of the
 * organization whose every permission the caller holds (no escalation through PBAC); nobody but an
 * owner changes their own custom role; the last accepted owner keeps the owner role.
 * A PATCH that would change nothing only shows the membership, so it needs the right to read it
 * (`read`): otherwise whoever may change roles but not list members reads any membership with it
 * (docs/decisions.md, "Memberships with consent").
 */
export async function changeMembership(
  deps: Runtime,
  access: AccessContext,
  caller: UserCaller,
  membershipId: number,
  change: MembershipChange,
  read: MembershipReadRequirement,
  audit: AuditContext,
): Promise<Membership> {
  const knex = deps.stores.db.knex;
  const parent = parentOf(access);
  const target = await getMembership(deps, access, membershipId);
  const actorRole = actorRoleOf(access);
  const self = target.userId === caller.userId;
  // Judged here first so that a refused request is answered as it always was (before any other
  // check), and again on locked rows below.
  enforce(checkRoleAssignment({ actorRole, self, currentRole: target.role, newRole: change.role ?? null }));
  if (change.accepted !== undefined && change.accepted !== target.accepted)
    throw new ForbiddenError(MUST_ACCEPT);
  if (changesNothing(target, change)) requireReadAccess(caller, access, read);
  const patch: MembershipPatch = {};
  if (change.role !== undefined) patch.role = change.role;
  if (change.customRoleId !== undefined) {
    if (self && actorRole !== 'OWNER' && change.customRoleId !== target.customRoleId) {
      throw new ForbiddenError(OWN_CUSTOM_ROLE);
    }
    if (change.customRoleId !== null) {
      const permissions = await assignableRolePermissions(deps, access, change.customRoleId);
      requireGrantable(access, permissions);
    }
    patch.customRoleId = change.customRoleId;
  }
  // The rules are judged again on the membership, the caller's own memberships and the other
  // owners as the change locks them: a role changed at the same moment (the target made owner, the
  // caller demoted or removed) is judged as committed, and two owners demoting each other at once
  // cannot both pass the last-owner rule and leave none. So are the route's own requirement and
  // the no-escalation rule, on the caller's custom roles, the one assigned and the organization's
  // PBAC switch as locked: a permission taken from the caller meanwhile is lost. A refusal keeps
  // its answer and message.
  const lastOwner = `The ${parent.kind} must keep at least one owner`;
  let updated: Membership | null;
  try {
    updated = await updateMembership(
      knex,
      deps.stores.tokenStore,
      parent,
      membershipId,
      patch,
      { audit },
      ({ membership, otherOwners, changer, organization, assigned }) => {
        const route = checkLockedAccess(access, caller, { mine: changer, organization });
        if (!route.verdict.allowed) return route.verdict;
        const lockedActorRole = actorRoleFrom(access, changer);
        const assignment = checkRoleAssignment({
          actorRole: lockedActorRole,
          self,
          currentRole: membership.role,
          newRole: patch.role ?? null,
        });
        if (!assignment.allowed) return assignment;
        if (
          self &&
          lockedActorRole !== 'OWNER' &&
          patch.customRoleId !== undefined &&
          patch.customRoleId !== membership.customRoleId
        ) {
          return { allowed: false, reason: OWN_CUSTOM_ROLE };
        }
        if (patch.customRoleId !== undefined && patch.customRoleId !== null) {
          if (assigned === null) return { allowed: false, reason: ROLE_NOT_FOUND };
          const grant = checkGrantable(route.access, assigned);
          if (!grant.allowed) return grant;
        }
        return membership.role === 'OWNER' &&
          membership.accepted &&
          patch.role !== undefined &&
          patch.role !== 'OWNER' &&
          otherOwners === 0
          ? { allowed: false, reason: lastOwner }
          : { allowed: true };
      },
      { removerUserId: caller.userId },
    );
  } catch (error) {
    if (error instanceof RuleRefusedError && error.reason === lastOwner) throw new ConflictError(lastOwner);
    if (error instanceof RuleRefusedError && error.reason === ROLE_NOT_FOUND) {
      throw new NotFoundError(ROLE_NOT_FOUND);
    }
    throw error;
  }
  if (!updated) throw new NotFoundError(MEMBERSHIP_NOT_FOUND);
  return updated;
}

const OWN_CUSTOM_ROLE = 'You cannot change the custom role of your own membership';
const ROLE_NOT_FOUND = 'Role not found';

const changesNothing = (target: Membership, change: MembershipChange): boolean =>
  (change.role === undefined || change.role === target.role) &&
  (change.customRoleId === undefined || change.customRoleId === target.customRoleId) &&
  (change.accepted === undefined || change.accepted === target.accepted);

/**
 * The permissions of a custom role of the membership's organization (404 for another's; 400 for a
 * system role or a team outside any organization).
 */
async function assignableRolePermissions(
  deps: Runtime,
  access: AccessContext,
  roleId: string,
): Promise<string[]> {
  const organizationId =
    access.requirement.level === 'organization' ? access.organization!.id : access.team!.organizationId;
  if (organizationId === null) {
    throw new BadRequestError('Teams outside an organization have no custom roles', [
      { field: 'body.customRoleId', message: 'custom roles need an organization' },
    ]);
  }
  const role = await findRole(deps.stores.db.knex, organizationId, roleId);
  if (!role) throw new NotFoundError(ROLE_NOT_FOUND);
  if (role.type === 'SYSTEM') {
    throw new BadRequestError('System roles cannot be assigned as a custom role; set `role` instead', [
      { field: 'body.customRoleId', message: 'must be a custom role' },
    ]);
  }
  return role.permissions;
}
