import { DuplicateRecordError, RecordNotFoundError } from '@sched/db/errors';
import type { AuditContext } from '@sched/db/queries/audit-log';
import {
  createMembership,
  findMembership,
  findMembershipByEmail,
  findMembershipOfUser,
  lockMembershipForShare,
  type Membership,
  type MembershipParent,
  type NewMembership,
  shareAcceptedMembership,
} from '@sched/db/queries/memberships';
import { findOrganizationById } from '@sched/db/queries/organizations';
import { findTeamById } from '@sched/db/queries/teams';
import { findUserById } from '@sched/db/queries/users';
import { transactionWithBumps, type VersionBumper } from '@sched/db/versions';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '@sched/kit/errors';
import { sendInvitationMail } from '@sched/memberships/invitation-mail';
import { checkRoleAssignment } from '@sched/policy/membership-rules';
import type { Role } from '@sched/policy/roles';
import type { Runtime } from '@sched/runtime/runtime';
import { userCallerKey } from '@sched/runtime/rate-limit';
import type { Knex } from 'knex';
import { enforceCallerLimit } from '../../auth/rate-limit.ts';
import type { AccessContext, UserCaller } from '../../routing/caller.ts';
import type { RouteRateLimit } from '../../routing/route.ts';
import { actorRoleOf, enforce, parentOf } from './context.ts';

/**
 * Who may be added to an organization or team, and how (docs/decisions.md "Memberships with
 * consent"). Nobody is made a member without consent: an organization or standalone team invites
 * (pending until the invitee accepts); only a team of an organization adds the organization's
 * accepted members directly. Nobody learns about an account they do not already share an
 * organization or team with: ids of strangers are "not found" whether they exist or not, and an
 * invitation by e-mail answers alike whether the address has an account or not.
 */

export const MUST_ACCEPT = 'the invited user must accept the invitation';
export const USER_NOT_FOUND = 'User not found';
export const NOT_IN_ORGANIZATION =
  'The user must be a member of the organization first (an invitation is enough)';

/** Invitation e-mails per inviter (API key or token alike). */
export const INVITATIONS_LIMIT: RouteRateLimit = { name: 'invitations', what: 'invitations sent' };

export type NewMembershipInput = ({ userId: number } | { email: string }) & {
  role: Role;
  accepted?: boolean | undefined;
};

/** Whom the membership is of, and whether it starts accepted. */
interface Invitee {
  member: NewMembership['member'];
  accepted: boolean;
}

export async function addMembership(
  deps: Runtime,
  access: AccessContext,
  caller: UserCaller,
  input: NewMembershipInput,
  audit: AuditContext,
): Promise<Membership> {
  const parent = parentOf(access);
  // The role rules first: they depend on the caller alone, so they tell nothing about the target.
  const self = 'userId' in input && input.userId === caller.userId;
  enforce(
    checkRoleAssignment({ actorRole: actorRoleOf(access), self, currentRole: null, newRole: input.role }),
  );
  const organizationOfTeam = parent.kind === 'team' ? access.team!.organizationId : null;
  const knex = deps.stores.db.knex;
  // Each invitation e-mails someone the caller chose: bounded per inviter, before anything is made
  // (and outside the insert's transaction: the limit's store may use a connection of its own).
  const limit = async (invitee: Invitee) => {
    if (!invitee.accepted) await enforceCallerLimit(INVITATIONS_LIMIT, userCallerKey(caller.userId), deps);
  };
  // Its event: `membership.invited`, or `membership.added` for a team of an organization's member.
  const add = (trx: Knex, versions: VersionBumper, invitee: Invitee) =>
    insert(
      trx,
      versions,
      {
        parent,
        member: invitee.member,
        role: input.role,
        accepted: invitee.accepted,
        invitedByUserId: caller.userId,
      },
      audit,
    );
  let membership: Membership;
  if (organizationOfTeam === null) {
    const invitee = await inviteeOfInvitation(deps, caller, parent, input);
    await limit(invitee);
    membership = await add(knex, deps.stores.tokenStore, invitee);
  } else {
    const ofTeam = (trx: Knex, lock: boolean) =>
      inviteeOfOrganizationTeam(trx, caller, parent, organizationOfTeam, input, lock);
    await limit(await ofTeam(knex, false));
    // Then judged again with the organization membership locked, in the insert's transaction: a
    // removal from the organization at the same time either waits and takes the new team
    // membership along, or goes first and the add is refused. (Should the membership turn pending
    // meanwhile, that one invitation escapes the limit.)
    membership = await transactionWithBumps(knex, deps.stores.tokenStore, async (trx, bumper) =>
      add(trx, bumper, await ofTeam(trx, true)),
    );
  }
  if (!membership.accepted) await mailInvitation(deps, parent, membership, caller);
  return membership;
}

/** An organization or a standalone team: always an invitation, to a known user or to an address. */
async function inviteeOfInvitation(
  deps: Runtime,
  caller: UserCaller,
  parent: MembershipParent,
  input: NewMembershipInput,
): Promise<Invitee> {
  if (input.accepted === true) throw new ForbiddenError(MUST_ACCEPT);
  if ('email' in input) return invitationOfAddress(deps.stores.db.knex, parent, input.email);
  await requireKnownUser(deps.stores.db.knex, caller, input.userId);
  return { member: { userId: input.userId }, accepted: false };
}

/**
 * An invitation to the address as typed, whether or not it is an account's: the answer is the same
 * either way, and the invitee's verified address accepts it (docs/schema.md, "Invitations").
 * Accepted members are listed to the inviter anyway, so one of them is 409.
 */
async function invitationOfAddress(knex: Knex, parent: MembershipParent, email: string): Promise<Invitee> {
  const existing = await findMembershipByEmail(knex, parent, email);
  if (existing?.accepted) throw alreadyMember(parent, 'body.email');
  return { member: { email }, accepted: false };
}

/** An id names a user only to someone sharing an accepted membership with them; any other: 404. */
async function requireKnownUser(knex: Knex, caller: UserCaller, userId: number): Promise<void> {
  if (!(await shareAcceptedMembership(knex, caller.userId, userId))) {
    throw new NotFoundError(USER_NOT_FOUND);
  }
}

/**
 * A team of an organization: accepted members of the organization join it directly (accepted
 * unless the body says `accepted: false`); pending members, and addresses invited to the
 * organization, get a pending team membership. Anyone else: 400, or 404 for an id the caller has
 * no way to know.
 */
async function inviteeOfOrganizationTeam(
  knex: Knex,
  caller: UserCaller,
  team: MembershipParent,
  organizationId: number,
  input: NewMembershipInput,
  lock: boolean,
): Promise<Invitee> {
  const organization: MembershipParent = { kind: 'organization', id: organizationId };
  return 'email' in input
    ? inviteeOfOrganizationTeamByEmail(knex, team, organization, input.email, input.accepted, lock)
    : inviteeOfOrganizationTeamById(knex, caller, organization, input.userId, input.accepted, lock);
}

async function inviteeOfOrganizationTeamByEmail(
  knex: Knex,
  team: MembershipParent,
  organization: MembershipParent,
  email: string,
  accepted: boolean | undefined,
  lock: boolean,
): Promise<Invitee> {
  const found = await findMembershipByEmail(knex, organization, email);
  const orgMembership = lock ? await lockedMembership(knex, organization, found) : found;
  if (!orgMembership) throw notInOrganization('body.email');
  // The caller shares the organization with its accepted members: they may join at once.
  if (orgMembership.accepted && accepted !== false) {
    return { member: { userId: orgMembership.userId! }, accepted: true };
  }
  // Anyone else pending is invited at the address typed, never at an account found by it, so the
  // answer neither depends on whether the address has an account nor shows that account's id.
  return invitationOfAddress(knex, team, email);
}

async function inviteeOfOrganizationTeamById(
  knex: Knex,
  caller: UserCaller,
  organization: MembershipParent,
  userId: number,
  accepted: boolean | undefined,
  lock: boolean,
): Promise<Invitee> {
  // Known first (a pending invitation to the organization is no shared membership), so the answer
  // for an id the caller cannot know is the same 404 whatever that id's memberships.
  await requireKnownUser(knex, caller, userId);
  const found = await findMembershipOfUser(knex, organization, userId);
  const orgMembership = lock ? await lockedMembership(knex, organization, found) : found;
  if (!orgMembership) throw notInOrganization('body.userId');
  return { member: { userId }, accepted: orgMembership.accepted && accepted !== false };
}

/**
 * The organization membership found, locked (FOR SHARE: removals lock it FOR UPDATE, so they wait
 * for the add, or it for them) and read again under the lock; null when it is gone meanwhile.
 */
async function lockedMembership(
  trx: Knex,
  organization: MembershipParent,
  found: Membership | null,
): Promise<Membership | null> {
  if (!found) return null;
  await lockMembershipForShare(trx, found.id);
  return findMembership(trx, organization, found.id);
}

const notInOrganization = (field: string) =>
  new BadRequestError(NOT_IN_ORGANIZATION, [{ field, message: 'not a member of the organization' }]);

async function insert(
  knex: Knex,
  versions: VersionBumper,
  input: NewMembership,
  audit: AuditContext,
): Promise<Membership> {
  try {
    return await createMembership(knex, versions, input, { audit });
  } catch (error) {
    if (error instanceof DuplicateRecordError) {
      const field = 'email' in input.member ? 'body.email' : 'body.userId';
      if (error.field === 'email') {
        throw new ConflictError(`This address is already invited to this ${input.parent.kind}`, [
          { field, message: 'already invited' },
        ]);
      }
      throw alreadyMember(input.parent, field);
    }
    if (error instanceof RecordNotFoundError) throw new NotFoundError(USER_NOT_FOUND);
    throw error;
  }
}

const alreadyMember = (parent: MembershipParent, field: string) =>
  new ConflictError(`The user is already a member of this ${parent.kind}`, [
    { field, message: 'already a member' },
  ]);

async function mailInvitation(
  deps: Runtime,
  parent: MembershipParent,
  membership: Membership,
  caller: UserCaller,
): Promise<void> {
  const knex = deps.stores.db.knex;
  const [target, inviter, invitee] = await Promise.all([
    parent.kind === 'organization' ? findOrganizationById(knex, parent.id) : findTeamById(knex, parent.id),
    findUserById(knex, caller.userId),
    membership.userId === null ? null : findUserById(knex, membership.userId),
  ]);
  const to = membership.invitedEmail ?? invitee?.email;
  if (!to) return;
  await sendInvitationMail(deps, {
    to,
    kind: parent.kind,
    name: target?.name ?? `${parent.kind} ${parent.id}`,
    role: membership.role,
    inviterName: inviter?.name ?? inviter?.email ?? null,
  });
}
