// The three system roles and the permissions each holds. The single source for the code:
// `role-grants.ts` reads these lists to know what a membership role holds. The seeded rows
// (migration 0003, which keeps its own historical copy) must equal them: test/db/role-rows.test.ts
// compares the two.
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
  member_role: [
    'organization.read',
    'organization.listMembers',
    'team.read',
    'team.listMembers',
    'role.read',
    'eventType.read',
    'booking.read',
    'schedule.read',
  ],
};

/** The system role matching a membership role: OWNER -> owner_role, and so on. */
export const SYSTEM_ROLE_OF: Readonly<Record<Role, SystemRoleId>> = {
  OWNER: 'owner_role',
  ADMIN: 'admin_role',
  MEMBER: 'member_role',
};
