import type { Booking } from '@sched/db/queries/bookings';
import type { EventType } from '@sched/db/queries/event-types';
import type { HostProfile, Schedule } from '@sched/db/queries/schedules';
import { groupRules } from '@sched/policy/availability';

/** Event type output (contract §8): personal ones have ownerId, team ones teamId and hostUserIds. */
export const presentEventType = (eventType: EventType) => ({
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

export const presentSchedule = (schedule: Schedule) => ({
  id: schedule.id,
  name: schedule.name,
  timeZone: schedule.timeZone,
  isDefault: true,
  availability: groupRules(schedule.rules),
});

export const presentHost = (host: HostProfile) => ({
  id: host.id,
  name: host.name,
  email: host.email,
  timeZone: host.timeZone,
});

/** Booking output (contract §8): {id, uid, eventTypeId, start, end, status, hosts, attendees, ...}. */
export const presentBooking = (booking: Booking, host: HostProfile | undefined) => ({
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
