import type { Membership } from '@sched/db/queries/memberships';
import { ROLES } from '@sched/policy/roles';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

/**
 * The member as the membership shows them. Until the invitee accepts, only what the inviter gave:
 * the address of an invitation by e-mail, the username of one by id; nothing else of the account.
 */
function presentMember(membership: Membership) {
  const user = membership.user;
  if (membership.accepted && user) {
    const { email, avatarUrl, username, name, bio, metadata } = user;
    return { email, avatarUrl, username, name, bio, metadata };
  }
  return {
    email: membership.invitedEmail,
    avatarUrl: null,
    username: membership.invitedEmail === null ? (user?.username ?? null) : null,
    name: null,
    bio: null,
    metadata: null,
  };
}

/** A membership belongs to a team or to an organization: one of the two ids is always set. */
function parentId(membership: Membership): number {
  const id = membership.teamId ?? membership.organizationId;
  if (id === null) throw new Error(`membership ${membership.id} has neither a team nor an organization`);
  return id;
}

/**
 * The v2 API's Membership + `customRoleId`. For an organization membership `teamId` carries the
 * organization id (docs/schema.md: as cal.com, where an organization is a team). `userId` is null
 * while the membership is an invitation to an e-mail address.
 */
export function presentMembership(membership: Membership) {
  return {
    id: membership.id,
    userId: membership.userId,
    teamId: parentId(membership),
    accepted: membership.accepted,
    role: membership.role,
    user: presentMember(membership),
    disableImpersonation: membership.disableImpersonation,
    customRoleId: membership.customRoleId,
  };
}

export const membershipOutput = named(
  'Membership',
  z.object({
    id: z.int(),
    userId: z
      .int()
      .nullable()
      .meta({ description: 'null while an invitation to an e-mail address is pending' }),
    teamId: z.int().meta({ description: 'the team, or for organization memberships the organization' }),
    accepted: z.boolean(),
    role: z.enum(ROLES),
    user: z
      .object({
        email: z.string().nullable(),
        avatarUrl: z.string().nullable(),
        username: z.string().nullable(),
        name: z.string().nullable(),
        bio: z.string().nullable(),
        metadata: z.record(z.string(), z.unknown()).nullable(),
      })
      .meta({
        description:
          'until accepted, only what the inviter gave: the e-mail (invited by e-mail) or the username (invited by id)',
      }),
    disableImpersonation: z.boolean(),
    customRoleId: z.string().nullable(),
  }),
  {
    id: 41,
    userId: 5,
    teamId: 12,
    accepted: true,
    role: 'MEMBER',
    user: {
      email: 'mia@example.com',
      avatarUrl: null,
      username: 'mia',
      name: 'Mia Member',
      bio: null,
      metadata: {},
    },
    disableImpersonation: false,
    customRoleId: null,
  },
);
