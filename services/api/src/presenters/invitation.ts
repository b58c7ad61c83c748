import type { Invitation } from '@sched/db/queries/invitations';
import { ROLES } from '@sched/policy/roles';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

/** A pending invitation as its invitee sees it (GET /v2/me/invitations). */
export function presentInvitation(invitation: Invitation) {
  return {
    id: invitation.id,
    kind: invitation.kind,
    organizationId:
      invitation.kind === 'organization' ? invitation.organizationId : invitation.teamOrganizationId,
    teamId: invitation.teamId,
    name: invitation.name,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    createdAt: invitation.createdAt.toISOString(),
  };
}

export const invitationOutput = named(
  'Invitation',
  z.object({
    id: z.int().meta({ description: 'the membership id (accept and decline take it)' }),
    kind: z.enum(['organization', 'team']),
    organizationId: z
      .int()
      .nullable()
      .meta({ description: 'the organization, or for a team of an organization that organization' }),
    teamId: z.int().nullable(),
    name: z.string().meta({ description: 'name of the organization or team' }),
    role: z.enum(ROLES),
    invitedBy: z.object({ name: z.string().nullable() }).nullable(),
    createdAt: z.string(),
  }),
  {
    id: 41,
    kind: 'team',
    organizationId: 7,
    teamId: 12,
    name: 'Sales',
    role: 'MEMBER',
    invitedBy: { name: 'Ada Admin' },
    createdAt: '2026-11-26T09:30:00.000Z',
  },
);
