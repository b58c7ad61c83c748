import { findUserById, type User } from '@sched/db/queries/users';
import { UnauthorizedError } from '@sched/kit/errors';
import { acceptMyInvitation, declineMyInvitation, listMyInvitations } from '@sched/memberships/invitee';
import { z } from 'zod';
import { invitationOutput, presentInvitation } from '../../presenters/invitation.ts';
import { membershipOutput, presentMembership } from '../../presenters/membership.ts';
import type { Runtime } from '@sched/runtime/runtime';
import { auditContextOf } from '../../routing/audit.ts';
import { type AnyRoute, defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';

/**
 * The invitee's answers (only the invitee changes `accepted`). No scope: joining an organization
 * or team is the user's own decision, not something a third-party app does on their behalf.
 */

const TAG = 'Invitations';
const invitationParams = z.strictObject({ membershipId: idParam });

async function currentUser(deps: Runtime, userId: number): Promise<User> {
  const user = await findUserById(deps.stores.db.knex, userId);
  if (!user) throw new UnauthorizedError('The user of this credential no longer exists');
  return user;
}

const listInvitationsRoute = defineRoute({
  method: 'GET',
  path: '/me/invitations',
  summary: "The caller's pending invitations to organizations and teams",
  description:
    'Invitations to the caller as a user, and those sent to their e-mail address once it is verified.',
  tags: [TAG],
  auth: 'user',
  response: {
    status: 200,
    description: 'Pending invitations, oldest first',
    schema: z.array(invitationOutput),
  },
  handler: async ({ deps, caller }) => ({
    data: (await listMyInvitations(deps, await currentUser(deps, caller.userId))).map(presentInvitation),
  }),
});

const acceptInvitationRoute = defineRoute({
  method: 'POST',
  path: '/me/invitations/:membershipId/accept',
  summary: 'Accepts an invitation: the membership becomes accepted',
  description:
    'A team of an organization is joined after the organization (409 until that invitation is accepted). ' +
    "Someone else's invitation, or one already answered: 404.",
  tags: [TAG],
  auth: 'user',
  params: invitationParams,
  response: {
    status: 200,
    description: 'The accepted membership',
    schema: membershipOutput,
    errors: { 409: "A team's organization invitation must be accepted first; or already a member" },
  },
  handler: async ({ deps, caller, params, ctx }) => ({
    data: presentMembership(
      await acceptMyInvitation(
        deps,
        await currentUser(deps, caller.userId),
        params.membershipId,
        auditContextOf(caller, ctx),
      ),
    ),
  }),
});

const declineInvitationRoute = defineRoute({
  method: 'POST',
  path: '/me/invitations/:membershipId/decline',
  summary: 'Declines an invitation: the pending membership is deleted',
  description: "Declining an organization's invitation also declines the pending ones to its teams.",
  tags: [TAG],
  auth: 'user',
  params: invitationParams,
  response: { status: 204, description: 'Declined' },
  handler: async ({ deps, caller, params, ctx }) => {
    await declineMyInvitation(
      deps,
      await currentUser(deps, caller.userId),
      params.membershipId,
      auditContextOf(caller, ctx),
    );
    return { status: 204 };
  },
});

export const invitationRoutes: readonly AnyRoute[] = [
  listInvitationsRoute,
  acceptInvitationRoute,
  declineInvitationRoute,
];
