import { findBookingByUid, listHostBookings, listTeamBookings } from '@sched/db/queries/bookings';
import { getHostProfiles } from '@sched/db/queries/schedules';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import { cancelBooking, createBooking, rescheduleBooking } from '../../scheduling/booking-service.ts';
import { bookingOutput, presentBooking } from '../../scheduling/presenters.ts';
import {
  bookingBody,
  cancelBody,
  idString,
  listBookingsQuery,
  rescheduleBody,
  uidParams,
} from './schemas.ts';

const TAGS = ['Bookings'];

/** Public endpoints: per IP address when anonymous (a booking form behind one NAT stays well under). */
const BOOKINGS_LIMIT = { name: 'bookings', what: 'bookings' } as const;
const BOOKING_CHANGES_LIMIT = { name: 'booking-changes', what: 'booking changes' } as const;

export const bookingRoutes = [
  defineRoute({
    method: 'POST',
    path: '/bookings',
    summary:
      'Books a slot (public). 409 slot_unavailable outside availability or when taken; 409 booking_limit_reached when a limit period is full',
    tags: TAGS,
    auth: 'public',
    mcp: {
      name: 'create_booking',
      description: 'Books a slot of an event type for an attendee (start from get_available_slots)',
    },
    scope: 'BOOKING_WRITE',
    rateLimit: BOOKINGS_LIMIT,
    body: bookingBody,
    response: {
      status: 201,
      description: 'The booking',
      schema: bookingOutput,
      errors: {
        409: 'slot_unavailable (outside availability or taken) or booking_limit_reached (a limit period is full)',
      },
    },
    handler: async ({ deps, body }) => {
      const { booking, host } = await createBooking(deps.stores.db.knex, {
        eventTypeId: body.eventTypeId,
        start: new Date(body.start),
        attendee: body.attendee,
        calendars: deps.calendars.busyTimes,
      });
      return { status: 201, data: presentBooking(booking, host) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/bookings/:uid/cancel',
    summary: 'Cancels a booking (public; the uid is the capability); it stops counting against limits',
    tags: TAGS,
    auth: 'public',
    mcp: { name: 'cancel_booking', description: 'Cancels a booking by its uid' },
    scope: 'BOOKING_WRITE',
    rateLimit: BOOKING_CHANGES_LIMIT,
    params: uidParams,
    body: cancelBody,
    response: {
      status: 200,
      description: 'The cancelled booking',
      schema: bookingOutput,
      errors: { 409: 'The booking is already cancelled' },
    },
    handler: async ({ deps, params, body }) => {
      const { booking, host } = await cancelBooking(
        deps.stores.db.knex,
        params.uid,
        body.cancellationReason ?? null,
      );
      return { data: presentBooking(booking, host) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/bookings/:uid/reschedule',
    summary: 'Moves a booking to a new start: a new booking is created and the old one cancelled (public)',
    tags: TAGS,
    auth: 'public',
    mcp: {
      name: 'reschedule_booking',
      description: 'Moves a booking (by uid) to a new start; the old booking is cancelled',
    },
    scope: 'BOOKING_WRITE',
    rateLimit: BOOKING_CHANGES_LIMIT,
    params: uidParams,
    body: rescheduleBody,
    response: {
      status: 201,
      description: 'The new booking',
      schema: bookingOutput,
      errors: {
        409: 'The booking is not accepted or its event type is gone; slot_unavailable or booking_limit_reached for the new start',
      },
    },
    handler: async ({ deps, params, body }) => {
      const { booking, host } = await rescheduleBooking(deps.stores.db.knex, {
        uid: params.uid,
        start: new Date(body.start),
        calendars: deps.calendars.busyTimes,
      });
      return { status: 201, data: presentBooking(booking, host) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/bookings',
    summary: "The caller's bookings as host, by start time (skip, take up to 250, optional status)",
    tags: TAGS,
    auth: 'user',
    mcp: {
      name: 'list_bookings',
      description: "The user's bookings as host, by start time (optional status, skip, take)",
    },
    scope: 'BOOKING_READ',
    query: listBookingsQuery,
    response: { status: 200, description: 'Bookings', schema: z.array(bookingOutput) },
    handler: async ({ caller, deps, query }) => {
      const knex = deps.stores.db.knex;
      const [bookings, hosts] = await Promise.all([
        listHostBookings(knex, caller.userId, {
          status: query.status,
          skip: query.skip ?? 0,
          take: query.take ?? 250,
        }),
        getHostProfiles(knex, [caller.userId]),
      ]);
      return { data: bookings.map((booking) => presentBooking(booking, hosts[0])) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/bookings/:uid',
    summary: "One of the caller's bookings as host, by uid (another's or an unknown uid is 404)",
    tags: TAGS,
    auth: 'user',
    scope: 'BOOKING_READ',
    params: uidParams,
    response: { status: 200, description: 'The booking', schema: bookingOutput },
    handler: async ({ caller, deps, params }) => {
      const knex = deps.stores.db.knex;
      const booking = await findBookingByUid(knex, params.uid);
      // Someone else's booking answers as an unknown one: its existence is not the caller's to learn.
      if (!booking || booking.hostUserId !== caller.userId) throw new NotFoundError('Booking not found');
      const [host] = await getHostProfiles(knex, [caller.userId]);
      return { data: presentBooking(booking, host) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/teams/:teamId/bookings',
    summary: "Bookings of the team's event types, by start time (skip, take up to 250, optional status)",
    tags: TAGS,
    auth: 'user',
    mcp: { name: 'list_team_bookings' },
    scope: 'TEAM_BOOKING_READ',
    access: { level: 'team', minimumRole: 'MEMBER', permission: 'booking.read' },
    params: z.object({ teamId: idString }),
    query: listBookingsQuery,
    response: { status: 200, description: 'Bookings', schema: z.array(bookingOutput) },
    handler: async ({ deps, params, query }) => {
      const knex = deps.stores.db.knex;
      const bookings = await listTeamBookings(knex, params.teamId, {
        status: query.status,
        skip: query.skip ?? 0,
        take: query.take ?? 250,
      });
      const hostIds = [...new Set(bookings.flatMap((b) => (b.hostUserId === null ? [] : [b.hostUserId])))];
      const hosts = new Map((await getHostProfiles(knex, hostIds)).map((host) => [host.id, host]));
      return {
        data: bookings.map((booking) =>
          presentBooking(booking, booking.hostUserId === null ? undefined : hosts.get(booking.hostUserId)),
        ),
      };
    },
  }),
];
