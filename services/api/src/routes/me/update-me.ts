import { getBookingLimits } from '@sched/db/queries/booking-limits';
import { findPrimaryOrganizationId } from '@sched/db/queries/memberships';
import { updateUser } from '@sched/db/queries/users';
import { UnauthorizedError } from '@sched/kit/errors';
import { profilePatch } from '@sched/policy/user-fields';
import { meOutput, presentMe } from '../../presenters/user.ts';
import { defineRoute } from '../../routing/route.ts';
import { named } from '../../openapi/named.ts';

/** The profile fields' rules, shared with the settings' profile page. */
export const updateMeBody = profilePatch;

export const updateMe = defineRoute({
  method: 'PATCH',
  path: '/me',
  summary:
    "Changes the authenticated user's profile (name, username, timeZone, weekStart, locale, timeFormat)",
  tags: ['Me'],
  auth: 'user',
  scope: 'PROFILE_WRITE',
  // The settings page validates with updateMeBody itself; the route's copy only adds the name.
  body: named('UpdateMeRequest', updateMeBody, { name: 'Mia Member', timeZone: 'Europe/Lisbon' }),
  response: {
    status: 200,
    description: 'The updated user',
    schema: meOutput,
    errors: { 409: 'The username is taken' },
  },
  handler: async ({ caller, deps, body }) => {
    const knex = deps.stores.db.knex;
    const user = await updateUser(knex, deps.stores.tokenStore, caller.userId, body);
    if (!user) throw new UnauthorizedError('The user of this credential no longer exists');
    const [organizationId, bookingLimits] = await Promise.all([
      findPrimaryOrganizationId(knex, caller.userId),
      getBookingLimits(knex, caller.userId),
    ]);
    return { data: presentMe(user, organizationId, bookingLimits) };
  },
});
