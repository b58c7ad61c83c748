import type { AccessRequirement } from '@sched/policy/access';
import type { Permission } from '@sched/policy/permissions';
import type { Role } from '@sched/policy/roles';
import type { Scope } from '@sched/policy/scopes';
import { z } from 'zod';
import { idParam } from '../../routing/schemas.ts';

/**
 * The three families of membership routes share one service and one set of route files; each
 * family names its path, scopes, level and PBAC permissions here, in one place.
 */
export interface MembershipFamily {
  /** Path of the collection; items are `${path}/:membershipId`. */
  path: string;
  level: AccessRequirement['level'];
  tag: string;
  /** What the summaries call the parent. */
  parent: string;
  scopes: { read: Scope; write: Scope };
  /** Who reads memberships: organization ADMIN (or `organization.listMembers`), any team member. */
  readRole: Role;
  permissions: { list: Permission; invite: Permission; change: Permission; remove: Permission };
  params: z.ZodType<Record<string, number>>;
  itemParams: z.ZodType<Record<string, number> & { membershipId: number }>;
}

const team = {
  list: 'team.listMembers',
  invite: 'team.invite',
  change: 'team.changeMemberRole',
  remove: 'team.remove',
} as const;

export const MEMBERSHIP_FAMILIES: readonly MembershipFamily[] = [
  {
    path: '/organizations/:orgId/memberships',
    level: 'organization',
    tag: 'Organization memberships',
    parent: 'organization',
    scopes: { read: 'ORG_MEMBERSHIP_READ', write: 'ORG_MEMBERSHIP_WRITE' },
    readRole: 'ADMIN',
    permissions: {
      list: 'organization.listMembers',
      invite: 'organization.invite',
      change: 'organization.changeMemberRole',
      remove: 'organization.remove',
    },
    params: z.strictObject({ orgId: idParam }),
    itemParams: z.strictObject({ orgId: idParam, membershipId: idParam }),
  },
  {
    path: '/organizations/:orgId/teams/:teamId/memberships',
    level: 'team',
    tag: 'Team memberships',
    parent: 'team of the organization',
    scopes: { read: 'TEAM_MEMBERSHIP_READ', write: 'TEAM_MEMBERSHIP_WRITE' },
    readRole: 'MEMBER',
    permissions: team,
    params: z.strictObject({ orgId: idParam, teamId: idParam }),
    itemParams: z.strictObject({ orgId: idParam, teamId: idParam, membershipId: idParam }),
  },
  {
    path: '/teams/:teamId/memberships',
    level: 'team',
    tag: 'Team memberships',
    parent: 'team',
    scopes: { read: 'TEAM_MEMBERSHIP_READ', write: 'TEAM_MEMBERSHIP_WRITE' },
    readRole: 'MEMBER',
    permissions: team,
    params: z.strictObject({ teamId: idParam }),
    itemParams: z.strictObject({ teamId: idParam, membershipId: idParam }),
  },
];

/**
 * The role (or PBAC permission) a membership route needs: reading, `family.readRole`; changing, an
 * admin (DELETE of a team membership: team admin; a member leaving is the exception, decided by the
 * service).
 */
export const access = (
  family: MembershipFamily,
  minimumRole: Role,
  permission: Permission,
): AccessRequirement => ({
  level: family.level,
  minimumRole,
  permission,
});
