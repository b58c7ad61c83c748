// The three system roles and the permissions each holds. The single source for the code:
// `role-grants.ts` reads these lists to know what a membership role holds. The seeded rows
// (migration 0003, which keeps its own historical copy, and the steps that changed them since:
// 0023) must equal them: test/db/role-rows.test.ts compares the two.
import type { PermissionPattern } from './permissions.ts';
import type { Role } from './roles.ts';

export const SYSTEM_ROLE_IDS = ['owner_role', 'admin_role', 'member_role'] as const;
export type SystemRoleId = (typeof SYSTEM_ROLE_IDS)[number];

export const SYSTEM_ROLE_PERMISSIONS: Readonly<Record<SystemRoleId, readonly PermissionPattern[]>> = {
  owner_role: ['*.*'],
  admin_role: [
    'role.*',
    'eventType.*',
    'team.*',
    'booking.*',
    'schedule.*',
    'organization.read',
    'organization.update',
    'organization.invite',
    'organization.remove',
    'organization.listMembers',
    'organization.changeMemberRole',
  ],
  // No organization.listMembers: listing an organization's members needs ADMIN (or that permission
  // on a custom role), so the role list must not show members holding it.
  member_role: [
    'organization.read',
    'team.read',
    'team.listMembers',
    'role.read',
    'eventType.read',
    'booking.read',
    'schedule.read',
  ],
};

/**
 * What an organization MEMBER holds across the whole organization, which is where a grant at the
 * organization (a custom role, or one assigned to an organization membership) applies: the part of
 * member_role that the MEMBER role itself opens there (its roles, the list of its teams). The rest
 * of member_role (team.listMembers, eventType.read, booking.read, schedule.read) a member holds
 * only in their own teams, through their team membership. Counting the whole list let a member who
 * may edit roles give themselves those rights in every team.
 */
export const ORGANIZATION_MEMBER_HOLDS: readonly PermissionPattern[] = [
  'organization.read',
  'role.read',
  'team.read',
];

/** The system role matching a membership role: OWNER -> owner_role, and so on. */
export const SYSTEM_ROLE_OF: Readonly<Record<Role, SystemRoleId>> = {
  OWNER: 'owner_role',
  ADMIN: 'admin_role',
  MEMBER: 'member_role',
};
