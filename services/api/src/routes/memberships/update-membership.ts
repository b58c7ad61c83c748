import { z } from 'zod';
import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { roleInput } from '../../routing/schemas.ts';
import { changeMembership } from '../../services/memberships/change.ts';
import { access, MEMBERSHIP_FAMILIES } from './families.ts';
import { named } from '../../openapi/named.ts';

export const membershipPatchBody = named(
  'UpdateMembershipRequest',
  z
    .strictObject({
      role: roleInput.optional(),
      accepted: z
        .boolean()
        .optional()
        .meta({ description: 'only the invitee changes it (GET /v2/me/invitations): a change here is 403' }),
      customRoleId: z
        .string()
        .min(1)
        .max(100)
        .nullable()
        .optional()
        .meta({ description: 'a custom role of the organization (PBAC); null removes it' }),
    })
    // A PATCH naming nothing to change is a mistake, and was a way to read a membership.
    .refine((body) => Object.keys(body).length > 0, {
      message: 'name at least one field to change: role, customRoleId or accepted',
    }),
  { role: 'ADMIN' },
);

export const updateMembershipRoutes = MEMBERSHIP_FAMILIES.map((family) =>
  defineRoute({
    method: 'PATCH',
    path: `${family.path}/:membershipId`,
    summary: `Changes a membership of the ${family.parent}: role, accepted, customRoleId`,
    description:
      'Role-assignment rules apply: nobody assigns a role above their own or changes a member ranked above ' +
      'them; an admin never assigns owner or changes an owner. Only an owner changes their own custom role. ' +
      '`accepted` is the invitee\'s to change (403 "the invited user must accept the invitation"). A ' +
      'body naming no field is 400; one that changes nothing (every value the current one) needs what ' +
      'reading the membership needs, since it only shows the membership. A ' +
      '`customRoleId` is assigned only by a caller who holds every permission of that role (403 "You cannot ' +
      'grant permissions you do not hold: <list>").',
    tags: [family.tag],
    auth: 'user',
    scope: family.scopes.write,
    access: access(family, 'ADMIN', family.permissions.change),
    params: family.itemParams,
    body: membershipPatchBody,
    response: {
      status: 200,
      description: 'The membership',
      schema: membershipOutput,
      errors: { 409: 'The organization or team must keep at least one accepted owner' },
    },
    handler: async ({ caller, deps, params, body, access, ctx }) => ({
      data: presentMembership(
        await changeMembership(
          deps,
          access!,
          caller,
          params.membershipId,
          body,
          { scope: family.scopes.read, role: family.readRole, permission: family.permissions.list },
          auditContextOf(caller, ctx),
        ),
      ),
    }),
  }),
);
