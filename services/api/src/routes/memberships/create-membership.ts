import { z } from 'zod';
import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { idValue, roleInput } from '../../routing/schemas.ts';
import { addMembership } from '../../services/memberships/invite.ts';
import { access, MEMBERSHIP_FAMILIES } from './families.ts';
import { named } from '../../openapi/named.ts';

/** `{userId, role}` or `{email, role}`; `accepted` is only for a team of an organization. */
export const newMembershipBody = named(
  'CreateMembershipRequest',
  z
    .strictObject({
      userId: idValue.optional(),
      email: z.email().max(254).optional(),
      role: roleInput,
      accepted: z
        .boolean()
        .optional()
        .meta({
          description:
            'team of an organization only: false makes the membership pending (default true for accepted ' +
            'members of the organization); elsewhere true is refused with 403',
        }),
    })
    .superRefine((body, ctx) => {
      if ((body.userId === undefined) === (body.email === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['userId'], message: 'give exactly one of userId and email' });
      }
    }),
  { userId: 5, role: 'MEMBER' },
);

const INVITATION_RULES =
  'Nobody joins without consent: this creates an invitation (accepted false) and e-mails the invitee, ' +
  'who accepts or declines it (GET /v2/me/invitations); `accepted: true` is refused (403 "the invited ' +
  'user must accept the invitation"). `userId` is accepted only for a user the caller already shares an ' +
  'accepted membership with (any other id, existing or not: 404 "User not found"); `email` always, and ' +
  'the answer is the same whether or not the address has an account. Until accepted, `user` shows only ' +
  'what the inviter gave (the e-mail, or for an id the username).';
const ORGANIZATION_TEAM_RULES =
  'Adds an accepted member of the organization directly (accepted true unless `accepted: false`); a ' +
  'pending member of the organization (or an address invited to it) gets a pending team membership and ' +
  'an e-mail: by `email`, an invitation to the address typed (userId null, the same answer whether or ' +
  'not the address has an account); by `userId`, only for a user the caller shares an accepted ' +
  'membership with. Anyone else: 400 "The user must be a member of the organization first (an ' +
  'invitation is enough)" (404 "User not found" for an id the caller shares no accepted membership ' +
  'with, a pending invitation to the organization included).';

export const createMembershipRoutes = MEMBERSHIP_FAMILIES.map((family) =>
  defineRoute({
    method: 'POST',
    path: family.path,
    summary:
      family.parent === 'team of the organization'
        ? 'Adds a member of the organization to the team ({userId, role} or {email, role})'
        : `Invites a user to the ${family.parent} ({userId, role} or {email, role})`,
    description: `${family.parent === 'team of the organization' ? ORGANIZATION_TEAM_RULES : INVITATION_RULES} Role-assignment rules apply: nobody assigns a role above their own; an admin never assigns owner (themselves included). Invitations are rate-limited per inviter.`,
    tags: [family.tag],
    auth: 'user',
    scope: family.scopes.write,
    access: access(family, 'ADMIN', family.permissions.invite),
    params: family.params,
    body: newMembershipBody,
    response: {
      status: 201,
      description: 'The membership',
      schema: membershipOutput,
      errors: {
        409: 'The user is already a member, or the address already invited',
        429: "Invitations past the inviter's hourly limit (`Retry-After`)",
      },
    },
    handler: async ({ caller, deps, body, access, ctx }) => {
      const member = body.email !== undefined ? { email: body.email } : { userId: body.userId! };
      const input = { ...member, role: body.role, accepted: body.accepted };
      const membership = await addMembership(deps, access!, caller, input, auditContextOf(caller, ctx));
      return { status: 201, data: presentMembership(membership) };
    },
  }),
);
