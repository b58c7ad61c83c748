import { DuplicateRecordError, RecordNotFoundError } from '@sched/db/errors';
import { createMembership } from '@sched/db/queries/memberships';
import { findOrganizationById } from '@sched/db/queries/organizations';
import { findUserByEmail, findUserById } from '@sched/db/queries/users';
import { ConflictError, NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam, idValue, roleInput } from '../../routing/schemas.ts';
import { named } from '../../openapi/named.ts';

/**
 * Provisioning by the operator (like Keycloak's admin adding a user to a group): the one way to
 * make an accepted organization membership without the member's own acceptance.
 */
export const provisionMembershipRoute = defineRoute({
  method: 'POST',
  path: '/admin/organizations/:orgId/memberships',
  summary: 'Adds an existing user to an organization as an accepted member ({userId, role} or {email, role})',
  description:
    "Service administrators only. Unlike the organization's own membership endpoint, which invites, this " +
    'provisions the membership accepted. The user must exist (404 otherwise); already a member: 409.',
  tags: ['Admin'],
  auth: 'admin',
  params: z.strictObject({ orgId: idParam }),
  body: named(
    'ProvisionMembershipRequest',
    z
      .strictObject({ userId: idValue.optional(), email: z.email().max(254).optional(), role: roleInput })
      .refine((body) => (body.userId === undefined) !== (body.email === undefined), {
        path: ['userId'],
        message: 'give exactly one of userId and email',
      }),
    { userId: 5, role: 'ADMIN' },
  ),
  response: {
    status: 201,
    description: 'The accepted membership',
    schema: membershipOutput,
    errors: { 409: 'The user is already a member of this organization' },
  },
  handler: async ({ deps, params, body, caller, ctx }) => {
    const knex = deps.stores.db.knex;
    if (!(await findOrganizationById(knex, params.orgId))) throw new NotFoundError('Organization not found');
    const user =
      body.email !== undefined
        ? await findUserByEmail(knex, body.email)
        : await findUserById(knex, body.userId!);
    if (!user) throw new NotFoundError('User not found');
    const parent = { kind: 'organization', id: params.orgId } as const;
    try {
      const membership = await createMembership(
        knex,
        deps.stores.tokenStore,
        { parent, member: { userId: user.id }, role: body.role, accepted: true },
        { audit: auditContextOf(caller, ctx), action: 'membership.provisioned' },
      );
      return { status: 201, data: presentMembership(membership) };
    } catch (error) {
      if (error instanceof DuplicateRecordError) {
        throw new ConflictError('The user is already a member of this organization', [
          { field: 'body.userId', message: 'already a member' },
        ]);
      }
      if (error instanceof RecordNotFoundError) throw new NotFoundError('User not found');
      throw error;
    }
  },
});
