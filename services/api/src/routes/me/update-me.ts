import { getBookingLimits } from '@sched/db/queries/booking-limits';
import { findPrimaryOrganizationId } from '@sched/db/queries/memberships';
import { updateUser, WEEKDAYS } from '@sched/db/queries/users';
import { UnauthorizedError } from '@sched/kit/errors';
import { z } from 'zod';
import { meOutput, presentMe } from '../../presenters/user.ts';
import { defineRoute } from '../../routing/route.ts';
import { invalidateUser } from '../../services/invalidate.ts';
import { LOCALES, timeZoneInput, usernameInput } from '../../routing/user-fields.ts';

export const updateMeBody = z.strictObject({
  name: z.string().trim().min(1).max(200).nullable().optional(),
  username: usernameInput.nullable().optional(),
  timeZone: timeZoneInput.optional(),
  weekStart: z.enum(WEEKDAYS).optional(),
  locale: z.enum(LOCALES).optional(),
  timeFormat: z
    .union([z.literal(12), z.literal(24)])
    .nullable()
    .optional(),
});

export const updateMe = defineRoute({
  method: 'PATCH',
  path: '/me',
  summary:
    "Changes the authenticated user's profile (name, username, timeZone, weekStart, locale, timeFormat)",
  tags: ['Me'],
  auth: 'user',
  scope: 'PROFILE_WRITE',
  body: updateMeBody,
  response: { status: 200, description: 'The updated user', schema: meOutput },
  handler: async ({ caller, deps, body }) => {
    const knex = deps.stores.db.knex;
    const user = await updateUser(knex, caller.userId, body);
    if (!user) throw new UnauthorizedError('The user of this credential no longer exists');
    // Cached memberships show the member's profile.
    await invalidateUser(deps, caller.userId);
    const [organizationId, bookingLimits] = await Promise.all([
      findPrimaryOrganizationId(knex, caller.userId),
      getBookingLimits(knex, caller.userId),
    ]);
    return { data: presentMe(user, organizationId, bookingLimits) };
  },
});
