import type { Membership } from '@sched/db/queries/memberships';
import { ROLES } from '@sched/policy/roles';
import { z } from 'zod';

/**
 * api-v2 Membership + `customRoleId`. For an organization membership `teamId` carries the
 * organization id (docs/schema.md: as cal.com, where an organization is a team).
 */
export function presentMembership(membership: Membership) {
  return {
    id: membership.id,
    userId: membership.userId,
    teamId: membership.teamId ?? membership.organizationId,
    accepted: membership.accepted,
    role: membership.role,
    user: {
      email: membership.user.email,
      avatarUrl: membership.user.avatarUrl,
      username: membership.user.username,
      name: membership.user.name,
      bio: membership.user.bio,
      metadata: membership.user.metadata,
    },
    disableImpersonation: membership.disableImpersonation,
    customRoleId: membership.customRoleId,
  };
}

export const membershipOutput = z.object({
  id: z.int(),
  userId: z.int(),
  teamId: z.int().meta({ description: 'the team, or for organization memberships the organization' }),
  accepted: z.boolean(),
  role: z.enum(ROLES),
  user: z.object({
    email: z.string(),
    avatarUrl: z.string().nullable(),
    username: z.string().nullable(),
    name: z.string().nullable(),
    bio: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  }),
  disableImpersonation: z.boolean(),
  customRoleId: z.string().nullable(),
});
