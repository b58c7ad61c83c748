import type { AnyRoute } from '../../routing/route.ts';
import { busyTimesRoute } from './busy-times.ts';
import { connectCalDavRoute } from './connect-caldav.ts';
import { deleteCalendarConnectionRoute } from './delete-calendar-connection.ts';
import { listCalendarsRoute } from './list-calendars.ts';
import { updateCalendarsRoute } from './update-calendars.ts';

/** Calendar connections. busy-times before /:connectionId so it is not taken for an id. */
export const calendarRoutes: readonly AnyRoute[] = [
  listCalendarsRoute,
  busyTimesRoute,
  connectCalDavRoute,
  updateCalendarsRoute,
  deleteCalendarConnectionRoute,
];
