import type { AnyRoute } from '../../routing/route.ts';
import { bookingLimitRoutes } from './booking-limits.ts';
import { bookingRoutes } from './bookings.ts';
import { eventTypeRoutes } from './event-types.ts';
import { scheduleRoutes } from './schedule.ts';
import { slotRoutes } from './slots.ts';

/** Issue 6: booking limits, event types, schedule, slots, bookings (docs/scheduling.md). */
export const schedulingRoutes: readonly AnyRoute[] = [
  ...bookingLimitRoutes,
  ...eventTypeRoutes,
  ...scheduleRoutes,
  ...slotRoutes,
  ...bookingRoutes,
];
