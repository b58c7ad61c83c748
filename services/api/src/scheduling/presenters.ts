import type { Booking } from '@sched/db/queries/bookings';
import type { EventType } from '@sched/db/queries/event-types';
import type { HostProfile, Schedule } from '@sched/db/queries/schedules';
import { groupRules } from '@sched/policy/availability';
import { WEEKDAY_NAMES } from '@sched/policy/booking-periods';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

const AT = '2026-11-26T09:30:00.000Z';
const limit = z.int().nullable();

/** A user's or an event type's limits; null where no limit is set. */
export const bookingLimitsOutput = named(
  'BookingLimits',
  z.object({ perDay: limit, perWeek: limit, perMonth: limit, perYear: limit }),
  { perDay: 3, perWeek: 10, perMonth: null, perYear: null },
);

export const eventTypeOutput = named(
  'EventType',
  z.object({
    id: z.int(),
    title: z.string(),
    slug: z.string(),
    lengthInMinutes: z.int(),
    ownerId: z.int().nullable().meta({ description: 'personal event types: the owner; null for team ones' }),
    teamId: z.int().nullable().meta({ description: 'team event types: the team; null for personal ones' }),
    hostUserIds: z.array(z.int()),
    bookingLimits: bookingLimitsOutput,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
  {
    id: 21,
    title: 'Intro call',
    slug: 'intro-call',
    lengthInMinutes: 30,
    ownerId: 5,
    teamId: null,
    hostUserIds: [5],
    bookingLimits: { perDay: 3, perWeek: null, perMonth: null, perYear: null },
    createdAt: AT,
    updatedAt: AT,
  },
);

/** Event type output: personal ones have ownerId, team ones teamId and hostUserIds. */
export const presentEventType = (eventType: EventType): z.output<typeof eventTypeOutput> => ({
  id: eventType.id,
  title: eventType.title,
  slug: eventType.slug,
  lengthInMinutes: eventType.lengthInMinutes,
  ownerId: eventType.ownerId,
  teamId: eventType.teamId,
  hostUserIds: eventType.hostUserIds,
  bookingLimits: eventType.bookingLimits,
  createdAt: eventType.createdAt.toISOString(),
  updatedAt: eventType.updatedAt.toISOString(),
});

export const scheduleOutput = named(
  'Schedule',
  z.object({
    id: z.int(),
    name: z.string(),
    timeZone: z.string().meta({ description: 'IANA time zone the times are read in' }),
    isDefault: z.boolean(),
    availability: z.array(
      z.object({
        days: z.array(z.enum(WEEKDAY_NAMES)),
        startTime: z.string().meta({ description: 'HH:MM' }),
        endTime: z.string().meta({ description: 'HH:MM (24:00 is the end of the day)' }),
      }),
    ),
  }),
  {
    id: 9,
    name: 'Working hours',
    timeZone: 'Europe/Berlin',
    isDefault: true,
    availability: [{ days: ['Monday', 'Tuesday', 'Wednesday'], startTime: '09:00', endTime: '17:00' }],
  },
);

export const presentSchedule = (schedule: Schedule): z.output<typeof scheduleOutput> => ({
  id: schedule.id,
  name: schedule.name,
  timeZone: schedule.timeZone,
  isDefault: true,
  availability: groupRules(schedule.rules),
});

const hostOutput = named(
  'BookingHost',
  z.object({ id: z.int(), name: z.string().nullable(), email: z.string(), timeZone: z.string() }),
  { id: 5, name: 'Mia Member', email: 'mia@example.com', timeZone: 'Europe/Berlin' },
);

export const presentHost = (host: HostProfile): z.output<typeof hostOutput> => ({
  id: host.id,
  name: host.name,
  email: host.email,
  timeZone: host.timeZone,
});

export const bookingOutput = named(
  'Booking',
  z.object({
    id: z.int(),
    uid: z.string().meta({ description: 'the capability to cancel or reschedule the booking' }),
    eventTypeId: z.int().nullable().meta({ description: 'null once the event type was deleted' }),
    start: z.iso.datetime(),
    end: z.iso.datetime(),
    status: z.enum(['accepted', 'cancelled', 'rejected']),
    hosts: z.array(hostOutput).meta({ description: 'empty once the host deleted their account' }),
    attendees: z.array(z.object({ name: z.string(), email: z.string(), timeZone: z.string() })),
    cancellationReason: z.string().nullable(),
    rescheduledFromUid: z.string().nullable().meta({ description: 'the booking this one replaced' }),
    createdAt: z.iso.datetime(),
  }),
  {
    id: 101,
    uid: 'bk_3Xc9Qp7LmZ2v',
    eventTypeId: 21,
    start: '2026-12-01T09:00:00.000Z',
    end: '2026-12-01T09:30:00.000Z',
    status: 'accepted',
    hosts: [{ id: 5, name: 'Mia Member', email: 'mia@example.com', timeZone: 'Europe/Berlin' }],
    attendees: [{ name: 'Alex Attendee', email: 'alex@example.org', timeZone: 'America/New_York' }],
    cancellationReason: null,
    rescheduledFromUid: null,
    createdAt: AT,
  },
);

/** Booking output: {id, uid, eventTypeId, start, end, status, hosts, attendees, ...}. */
export const presentBooking = (
  booking: Booking,
  host: HostProfile | undefined,
): z.output<typeof bookingOutput> => ({
  id: booking.id,
  uid: booking.uid,
  eventTypeId: booking.eventTypeId,
  start: booking.start.toISOString(),
  end: booking.end.toISOString(),
  status: booking.status,
  hosts: host ? [presentHost(host)] : [],
  attendees: [booking.attendee],
  cancellationReason: booking.cancellationReason,
  rescheduledFromUid: booking.rescheduledFromUid,
  createdAt: booking.createdAt.toISOString(),
});

const slotOutput = named('Slot', z.object({ start: z.iso.datetime({ offset: true }) }), {
  start: '2026-12-01T10:00:00.000+01:00',
});

/** GET /slots: the bookable starts, by date (YYYY-MM-DD) in the query's time zone. */
export const slotsByDateOutput = named('SlotsByDate', z.record(z.iso.date(), z.array(slotOutput)), {
  '2026-12-01': [{ start: '2026-12-01T10:00:00.000+01:00' }, { start: '2026-12-01T10:30:00.000+01:00' }],
});
