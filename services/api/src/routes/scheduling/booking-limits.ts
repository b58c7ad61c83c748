import {
  clearBookingLimits,
  getBookingLimits,
  isOrganizationMember,
  patchBookingLimits,
} from '@sched/db/queries/booking-limits';
import { ForbiddenError } from '@sched/kit/errors';
import type { Knex } from 'knex';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { bookingLimitsOutput } from '../../scheduling/presenters.ts';
import { bookingLimitsInput } from './schemas.ts';

const TAGS = ['Booking limits'];

/** Booking limits are for users who belong to an organization; others get 403. */
async function requireOrganizationMember(knex: Knex, userId: number): Promise<void> {
  if (!(await isOrganizationMember(knex, userId))) {
    throw new ForbiddenError('Booking limits are only available to members of an organization');
  }
}

export const bookingLimitRoutes = [
  defineRoute({
    method: 'GET',
    path: '/me/booking-limits',
    summary: "The caller's booking limits (perDay, perWeek, perMonth, perYear; null when unset)",
    tags: TAGS,
    auth: 'user',
    mcp: { name: 'get_booking_limits' },
    scope: 'PROFILE_READ',
    response: { status: 200, description: 'The limits', schema: bookingLimitsOutput },
    handler: async ({ caller, deps }) => {
      const knex = deps.stores.db.knex;
      await requireOrganizationMember(knex, caller.userId);
      return { data: await getBookingLimits(knex, caller.userId) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/me/booking-limits',
    summary: 'Merge update: a value sets that limit, null removes it, an omitted key is left alone',
    tags: TAGS,
    auth: 'user',
    mcp: { name: 'update_booking_limits' },
    scope: 'PROFILE_WRITE',
    body: bookingLimitsInput,
    response: { status: 200, description: 'The limits after the change', schema: bookingLimitsOutput },
    handler: async ({ caller, deps, body, ctx }) => {
      const knex = deps.stores.db.knex;
      await requireOrganizationMember(knex, caller.userId);
      return { data: await patchBookingLimits(knex, caller.userId, body, auditContextOf(caller, ctx)) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/me/booking-limits',
    summary: 'Removes every booking limit of the caller (204)',
    tags: TAGS,
    auth: 'user',
    scope: 'PROFILE_WRITE',
    response: { status: 204, description: 'Every limit removed' },
    handler: async ({ caller, deps, ctx }) => {
      const knex = deps.stores.db.knex;
      await requireOrganizationMember(knex, caller.userId);
      await clearBookingLimits(knex, caller.userId, auditContextOf(caller, ctx));
      return { status: 204 };
    },
  }),
];
