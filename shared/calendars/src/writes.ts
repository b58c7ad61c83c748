import {
  findCalendarConnectionById,
  setConnectionStatus,
  setLastSyncError,
  bumpBusyVersion,
} from '@sched/db/queries/calendar-connections';
import {
  type CalendarWrite,
  deleteBookingEvent,
  dropPendingCalendarWrites,
  findBookingEvent,
  findDestinationCalendar,
  moveBookingEvent,
  saveBookingEvent,
} from '@sched/db/queries/calendar-writes';
import { type Booking, findBookingById } from '@sched/db/queries/bookings';
import { findEventTypeById } from '@sched/db/queries/event-types';
import { getHostProfiles } from '@sched/db/queries/schedules';
import type { Knex } from 'knex';
import { type CalendarEventDraft, CredentialsRefusedError } from './connector.ts';
import type { CalendarService } from './service.ts';

/**
 * Carries out one queued calendar write: a booking becomes an event in the host's destination
 * calendar, a reschedule moves that event to the new booking's time, a cancel deletes it. Throws
 * when the provider fails (the worker retries with backoff); the connection's `lastSyncError` says
 * so until a later write to it succeeds.
 */

export interface CalendarWriteDeps {
  knex: Knex;
  calendars: Pick<CalendarService, 'connectorOf'>;
  /** Public origin of the API, for the cancel link in the event. */
  baseUrl: string;
}

/** The iCalendar UID of the event a booking became. */
const eventUidOf = (booking: Booking): string => `${booking.uid}@sched`;

async function draftOf(deps: CalendarWriteDeps, booking: Booking): Promise<CalendarEventDraft | null> {
  if (booking.hostUserId === null) return null;
  const [host] = await getHostProfiles(deps.knex, [booking.hostUserId]);
  if (!host) return null;
  const eventType =
    booking.eventTypeId === null ? null : await findEventTypeById(deps.knex, booking.eventTypeId);
  const what = eventType?.title ?? 'Meeting';
  const hostName = host.name ?? host.email;
  const cancel = `${deps.baseUrl}/v2/bookings/${encodeURIComponent(booking.uid)}/cancel`;
  return {
    uid: eventUidOf(booking),
    title: `${what} with ${booking.attendee.name}`,
    description: [
      `${what} between ${hostName} and ${booking.attendee.name} <${booking.attendee.email}>.`,
      `Booking ${booking.uid}.`,
      `To cancel, POST to ${cancel}`,
    ].join('\n'),
    start: booking.start,
    end: booking.end,
    timeZone: host.timeZone,
    organizer: { email: host.email, name: hostName },
    attendees: [{ email: booking.attendee.email, name: booking.attendee.name }],
  };
}

/** Records the outcome on the connection (lastSyncError, needs_reauth) and passes a failure on. */
async function onConnection<T>(
  deps: CalendarWriteDeps,
  connectionId: number,
  write: () => Promise<T>,
): Promise<T> {
  try {
    const result = await write();
    await setLastSyncError(deps.knex, connectionId, null);
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await setLastSyncError(deps.knex, connectionId, message);
    if (error instanceof CredentialsRefusedError)
      await setConnectionStatus(deps.knex, connectionId, 'needs_reauth');
    throw error;
  }
}

async function connectorFor(deps: CalendarWriteDeps, connectionId: number) {
  const connection = await findCalendarConnectionById(deps.knex, connectionId);
  if (!connection) return null;
  // Made inside each write's onConnection, so what keeps it from writing is recorded there:
  // credentials that no longer open, or a connection waiting to be reconnected. The latter is not
  // tried at all: repeating refused credentials at every retry gets accounts locked (Nextcloud's
  // brute-force protection, iCloud); the retries carry on and succeed once the user reconnects.
  const connector = () => {
    if (connection.status === 'needs_reauth')
      throw new CredentialsRefusedError(
        'The calendar no longer accepts the saved credentials: reconnect it to write bookings to it',
      );
    return deps.calendars.connectorOf(connection);
  };
  return { connection, connector };
}

async function create(deps: CalendarWriteDeps, booking: Booking): Promise<void> {
  if (booking.status !== 'accepted' || booking.hostUserId === null) return;
  if (await findBookingEvent(deps.knex, booking.id)) return;
  const destination = await findDestinationCalendar(deps.knex, booking.hostUserId);
  const draft = await draftOf(deps, booking);
  if (!destination || !draft) return;
  const target = await connectorFor(deps, destination.connectionId);
  if (!target) return;
  const { externalId } = await onConnection(deps, destination.connectionId, () =>
    target.connector().createEvent(destination.externalId, draft),
  );
  // No re-read needed: the booking itself keeps its time busy while its event is being written.
  await saveBookingEvent(deps.knex, booking.id, destination.calendarId, externalId);
}

/**
 * The host's calendar no longer holds what it did when their busy times were last read (a read
 * between the booking change and this write cached the old state): read it afresh next time.
 */
async function calendarChanged(deps: CalendarWriteDeps, hostUserId: number | null): Promise<void> {
  if (hostUserId !== null) await bumpBusyVersion(deps.knex, [hostUserId]);
}

async function remove(deps: CalendarWriteDeps, bookingId: number): Promise<void> {
  const event = await findBookingEvent(deps.knex, bookingId);
  if (!event) return;
  const target = await connectorFor(deps, event.connectionId);
  if (target) {
    await onConnection(deps, event.connectionId, () =>
      target.connector().deleteEvent(event.calendarExternalId, event.externalId),
    );
  }
  await deleteBookingEvent(deps.knex, bookingId);
  // Until now the deleted event was busy in the calendar: a read cached since the cancel still has it.
  if (target) await calendarChanged(deps, target.connection.userId);
}

export async function performCalendarWrite(deps: CalendarWriteDeps, write: CalendarWrite): Promise<void> {
  const booking = await findBookingById(deps.knex, write.bookingId);
  if (!booking) return;
  if (write.action === 'create') return create(deps, booking);
  if (write.action === 'delete') {
    // A create still waiting (its provider failing) need not run any more.
    await dropPendingCalendarWrites(deps.knex, booking.id, write.id);
    return remove(deps, booking.id);
  }
  // move: the old booking's event takes the new booking's time, or is deleted if that was cancelled too.
  const fromId = write.fromBookingId;
  const old = fromId === null ? null : await findBookingEvent(deps.knex, fromId);
  if (!old) return create(deps, booking);
  if (booking.status !== 'accepted') return remove(deps, old.bookingId);
  const draft = await draftOf(deps, booking);
  const target = await connectorFor(deps, old.connectionId);
  if (!draft || !target) return;
  // The event keeps the UID it was created with (CalDAV forbids changing it; invitees' clients match on it).
  const first = await findBookingById(deps.knex, old.bookingId);
  const uid = first ? eventUidOf(first) : draft.uid;
  await onConnection(deps, old.connectionId, () =>
    target.connector().updateEvent(old.calendarExternalId, old.externalId, { ...draft, uid }),
  );
  await moveBookingEvent(deps.knex, old.bookingId, booking.id);
  await calendarChanged(deps, booking.hostUserId);
}
