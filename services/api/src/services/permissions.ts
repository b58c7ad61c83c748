import { BadRequestError, ForbiddenError } from '@sched/kit/errors';
import type { RuleResult } from '@sched/policy/membership-rules';
import { type PermissionPattern, validatePermission } from '@sched/policy/permissions';
import { grantRefusalMessage, heldPermissions, permissionsNotHeld } from '@sched/policy/role-grants';
import type { AccessContext } from '../routing/caller.ts';

/**
 * Validates role permissions with `@sched/policy/permissions`; the first invalid one is a 400 with
 * the catalogue's fixed message. Returns them de-duplicated.
 */
export function requireValidPermissions(
  values: readonly string[],
  fieldOf: (index: number) => string = (index) => `body.permissions.${index}`,
): PermissionPattern[] {
  const valid: PermissionPattern[] = [];
  for (const [index, value] of values.entries()) {
    const check = validatePermission(value);
    if (!check.valid)
      throw new BadRequestError(check.message, [{ field: fieldOf(index), message: check.message }]);
    valid.push(check.permission);
  }
  return [...new Set(valid)];
}

/**
 * PBAC cannot be escalated: the caller must hold every one of `permissions` in the organization or
 * team `access` was decided on (organization- or team-level routes alike), else 403 `You cannot
 * grant permissions you do not hold: <those not held, in order>`. Uses the membership facts already
 * on `access`: no I/O. For a role's permissions (create, PATCH, add, replace) and for a custom role
 * assigned to a membership (`customRoleId`: pass that role's permissions); `requireManageable` for
 * a role being changed or deleted.
 */
export function requireGrantable(access: AccessContext, permissions: readonly string[]): void {
  const verdict = checkGrantable(access, permissions);
  if (!verdict.allowed) throw new ForbiddenError(verdict.reason);
}

/** requireGrantable's verdict, for a rule judged on locked rows that answers with a RuleResult. */
export function checkGrantable(access: AccessContext, permissions: readonly string[]): RuleResult {
  const { organization, team } = access;
  const held = heldPermissions({
    level: access.requirement.level,
    orgMembership: access.orgMembership,
    teamMembership: access.teamMembership,
    teamInOrganization:
      team !== null && team.organizationId !== null && team.organizationId === organization?.id,
    pbacEnabled: organization?.pbacEnabled ?? false,
  });
  const notHeld = permissionsNotHeld(held, permissions);
  return notHeld.length > 0 ? { allowed: false, reason: grantRefusalMessage(notHeld) } : { allowed: true };
}

/**
 * Changing or deleting a custom role (its name, its permissions, the role itself): the caller must
 * hold every permission the role has now as well as those they put on it. Otherwise someone who
 * may edit roles could strip, replace or delete a role an owner made with powers they lack (the
 * same 403 and message, listing what is not held: the new permissions first, then the role's).
 */
export function requireManageable(
  access: AccessContext,
  role: { permissions: readonly string[] },
  given: readonly string[] = [],
): void {
  requireGrantable(access, [...given, ...role.permissions]);
}
