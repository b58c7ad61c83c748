import { getBookingLimits } from '@sched/db/queries/booking-limits';
import { findPrimaryOrganizationId } from '@sched/db/queries/memberships';
import { findUserById } from '@sched/db/queries/users';
import { UnauthorizedError } from '@sched/kit/errors';
import { meOutput, presentMe } from '../../presenters/user.ts';
import { defineRoute } from '../../routing/route.ts';

export const getMe = defineRoute({
  method: 'GET',
  path: '/me',
  summary: 'The authenticated user, with their booking limits (verifies that credentials work)',
  tags: ['Me'],
  auth: 'user',
  mcp: {
    name: 'get_me',
    description: "The signed-in user's profile (id, name, email, time zone, locale, booking limits)",
  },
  scope: 'PROFILE_READ',
  response: { status: 200, description: 'The user', schema: meOutput },
  handler: async ({ caller, deps }) => {
    const knex = deps.stores.db.knex;
    const [user, organizationId, bookingLimits] = await Promise.all([
      findUserById(knex, caller.userId),
      findPrimaryOrganizationId(knex, caller.userId),
      getBookingLimits(knex, caller.userId),
    ]);
    if (!user) throw new UnauthorizedError('The user of this credential no longer exists');
    return { data: presentMe(user, organizationId, bookingLimits) };
  },
});
