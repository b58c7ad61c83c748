import { DuplicateRecordError, RecordNotFoundError } from '@sched/db/errors';
import type { AuditContext } from '@sched/db/queries/audit-log';
import {
  acceptInvitation,
  declineInvitation,
  findInvitation,
  type Invitation,
  type Invitee,
  listInvitations,
} from '@sched/db/queries/invitations';
import { findMembershipOfUser, type Membership } from '@sched/db/queries/memberships';
import type { User } from '@sched/db/queries/users';
import { ConflictError, NotFoundError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';

/**
 * The invitee's side of invitations, the same for the API (`/v2/me/invitations`) and the settings
 * pages: only the invitee changes `accepted`. Invitations sent to an e-mail address reach the
 * account whose address it is only once that address is verified, and never a managed user (its
 * client sets its address, which counts as verified without anyone proving it).
 */

export const INVITATION_NOT_FOUND = 'Invitation not found';
export const ACCEPT_ORGANIZATION_FIRST =
  'Accept the invitation to the organization first: a team of an organization is joined after the organization';
export const ALREADY_A_MEMBER = 'You already have a membership there; decline this invitation instead';

export const inviteeOf = (
  user: Pick<User, 'id' | 'email' | 'emailVerifiedAt' | 'managedByClientId'>,
): Invitee => ({
  userId: user.id,
  email: user.email,
  emailVerified: user.emailVerifiedAt !== null,
  managed: user.managedByClientId !== null,
});

type Deps = Pick<Runtime, 'stores'>;

/** The request's context, or one naming only the invitee (the invitee answers, never the system). */
const auditOfInvitee = (user: User, audit: AuditContext | undefined): AuditContext =>
  audit ?? { actor: { kind: 'user', userId: user.id }, requestId: null, ipAddress: null };

export function listMyInvitations(deps: Deps, user: User): Promise<Invitation[]> {
  return listInvitations(deps.stores.db.knex, inviteeOf(user));
}

async function requireInvitation(deps: Deps, invitee: Invitee, membershipId: number): Promise<Invitation> {
  const invitation = await findInvitation(deps.stores.db.knex, invitee, membershipId);
  if (!invitation) throw new NotFoundError(INVITATION_NOT_FOUND);
  return invitation;
}

/**
 * Accepts (200 with the membership): a team of an organization needs the organization's accepted
 * first. `audit` is the request's context (the invitee), for the `invitation.accepted` event.
 */
export async function acceptMyInvitation(
  deps: Deps,
  user: User,
  membershipId: number,
  audit: AuditContext | undefined,
): Promise<Membership> {
  const knex = deps.stores.db.knex;
  const invitee = inviteeOf(user);
  const invitation = await requireInvitation(deps, invitee, membershipId);
  if (invitation.teamOrganizationId !== null) {
    const orgMembership = await findMembershipOfUser(
      knex,
      { kind: 'organization', id: invitation.teamOrganizationId },
      user.id,
    );
    if (!orgMembership?.accepted) throw new ConflictError(ACCEPT_ORGANIZATION_FIRST);
  }
  let membership: Membership;
  try {
    membership = await acceptInvitation(
      knex,
      deps.stores.tokenStore,
      invitee,
      invitation,
      auditOfInvitee(user, audit),
    );
  } catch (error) {
    if (error instanceof RecordNotFoundError) throw new NotFoundError(INVITATION_NOT_FOUND);
    if (error instanceof DuplicateRecordError) throw new ConflictError(ALREADY_A_MEMBER);
    throw error;
  }
  return membership;
}

/**
 * Declines (the membership is deleted; an organization's takes its teams' pending ones along), with
 * its `invitation.declined` event.
 */
export async function declineMyInvitation(
  deps: Deps,
  user: User,
  membershipId: number,
  audit: AuditContext | undefined,
): Promise<Invitation> {
  const invitee = inviteeOf(user);
  const invitation = await requireInvitation(deps, invitee, membershipId);
  if (
    !(await declineInvitation(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      invitee,
      invitation,
      auditOfInvitee(user, audit),
    ))
  ) {
    throw new NotFoundError(INVITATION_NOT_FOUND);
  }
  return invitation;
}
