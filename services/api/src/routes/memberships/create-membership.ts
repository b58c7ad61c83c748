import { z } from 'zod';
import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import { defineRoute } from '../../routing/route.ts';
import { idValue, roleInput } from '../../routing/schemas.ts';
import { addMembership } from '../../services/memberships.ts';
import { access, MEMBERSHIP_FAMILIES } from './families.ts';

/** `{userId, role, accepted?}` adds a user; `{email, role}` invites by e-mail (accepted false, e-mail sent). */
export const newMembershipBody = z
  .strictObject({
    userId: idValue.optional(),
    email: z.email().max(254).optional(),
    role: roleInput,
    accepted: z.boolean().optional().meta({ description: 'with userId only; default false' }),
  })
  .superRefine((body, ctx) => {
    if ((body.userId === undefined) === (body.email === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['userId'], message: 'give exactly one of userId and email' });
    }
    if (body.email !== undefined && body.accepted !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['accepted'],
        message: 'an invitation by email is never accepted yet',
      });
    }
  });

export const createMembershipRoutes = MEMBERSHIP_FAMILIES.map((family) =>
  defineRoute({
    method: 'POST',
    path: family.path,
    summary: `Adds a user to the ${family.parent} ({userId, role, accepted?}) or invites one by e-mail ({email, role})`,
    description:
      'Role-assignment rules apply: nobody assigns a role above their own; an admin never assigns owner ' +
      '(themselves included). An invitation creates a pending membership and e-mails the invitee.',
    tags: [family.tag],
    auth: 'user',
    scope: family.scopes.write,
    access: access(family, 'ADMIN', family.permissions.invite),
    params: family.params,
    body: newMembershipBody,
    response: { status: 201, description: 'The membership', schema: membershipOutput },
    handler: async ({ caller, deps, body, access }) => {
      const input =
        body.email !== undefined
          ? { email: body.email, role: body.role }
          : { userId: body.userId!, role: body.role, accepted: body.accepted };
      const membership = await addMembership(deps, access!, caller, input);
      return { status: 201, data: presentMembership(membership) };
    },
  }),
);
