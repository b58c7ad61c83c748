import { isValidTimeZone } from '@sched/policy/booking-periods';
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import type { BusyInterval, CalendarEventDraft } from './connector.ts';

/**
 * iCalendar (RFC 5545) reading and writing with ical.js: which time a calendar object keeps busy,
 * and the object a booking becomes. Pure: no I/O.
 */

type Time = InstanceType<typeof ICAL.Time>;
type Component = InstanceType<typeof ICAL.Component>;

/** Upper bound on occurrences read per recurring event and range (an unbounded RRULE stops here). */
const MAX_OCCURRENCES = 5000;

/**
 * The instant a DATE-TIME stands for: UTC, an IANA TZID, a VTIMEZONE given in the object, or
 * (floating, or a TZID nobody knows) the host's wall clock.
 */
function instantOf(time: Time, tzid: string | undefined, hostZone: string): number {
  const parts = {
    year: time.year,
    month: time.month,
    day: time.day,
    hour: time.hour,
    minute: time.minute,
    second: time.second,
  };
  if (time.zone === ICAL.Timezone.utcTimezone)
    return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  if (tzid && isValidTimeZone(tzid)) return DateTime.fromObject(parts, { zone: tzid }).toMillis();
  if (tzid && ICAL.TimezoneService.has(tzid)) return time.toUnixTime() * 1000;
  return DateTime.fromObject(parts, { zone: hostZone }).toMillis();
}

/** All-day values block whole days in the host's time zone: [start day 00:00, end day 00:00). */
const dayStartIn = (time: Time, hostZone: string): number =>
  DateTime.fromObject({ year: time.year, month: time.month, day: time.day }, { zone: hostZone }).toMillis();

/** Does this event (or occurrence) keep its owner busy? Transparent and cancelled ones do not. */
function blocks(event: Component): boolean {
  const transp = String(event.getFirstPropertyValue('transp') ?? 'OPAQUE').toUpperCase();
  const status = String(event.getFirstPropertyValue('status') ?? 'CONFIRMED').toUpperCase();
  return transp !== 'TRANSPARENT' && status !== 'CANCELLED';
}

function intervalOf(event: Component, start: Time, end: Time, hostZone: string): BusyInterval | null {
  const tzid = (event.getFirstProperty('dtstart')?.getParameter('tzid') as string | undefined) ?? undefined;
  const endTzid = (event.getFirstProperty('dtend')?.getParameter('tzid') as string | undefined) ?? tzid;
  const from = start.isDate ? dayStartIn(start, hostZone) : instantOf(start, tzid, hostZone);
  let to = end.isDate ? dayStartIn(end, hostZone) : instantOf(end, endTzid, hostZone);
  // An all-day event without DTEND lasts the day; a timed one without DTEND/DURATION is an instant.
  if (to <= from)
    to = start.isDate ? DateTime.fromMillis(from, { zone: hostZone }).plus({ days: 1 }).toMillis() : from;
  return to > from ? { start: new Date(from), end: new Date(to) } : null;
}

const DAY_MS = 86_400_000;
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Where to start expanding a series so that `MAX_OCCURRENCES` is spent on the range, not on the
 * years before it (a daily stand-up since 2010 has more than 5000 occurrences before 2026): the
 * start moved forward by whole weeks, which keeps every occurrence of a DAILY or WEEKLY rule where
 * it was (weekday, week parity, INTERVAL, wall-clock time in its zone). Only for rules whose
 * occurrences do not depend on counting from the first one (no COUNT) and a single RRULE; the
 * moved start lands at least two days and the event's length before the range, so it adds no
 * occurrence there. Undefined: expand from DTSTART.
 */
function fastForward(
  master: Component,
  event: InstanceType<typeof ICAL.Event>,
  from: number,
): Time | undefined {
  const rules = master.getAllProperties('rrule');
  if (rules.length !== 1) return undefined;
  const rule = rules[0]!.getFirstValue() as InstanceType<typeof ICAL.Recur>;
  if (rule.count || (rule.freq !== 'DAILY' && rule.freq !== 'WEEKLY')) return undefined;
  const interval = Math.max(1, rule.interval || 1);
  const stepDays = rule.freq === 'WEEKLY' ? 7 * interval : (7 * interval) / gcd(7, interval);
  const start = event.startDate;
  const lengthMs = Math.max(0, event.duration.toSeconds() * 1000);
  const spareMs = from - start.toUnixTime() * 1000 - lengthMs - 2 * DAY_MS;
  const steps = Math.floor(spareMs / (stepDays * DAY_MS));
  if (steps < 1) return undefined;
  const moved = start.clone();
  moved.adjust(steps * stepDays, 0, 0, 0);
  return moved;
}

/** Registers the VTIMEZONEs an object carries, so TZIDs that are not IANA names (Outlook's) resolve. */
function registerZones(calendar: Component): void {
  for (const zone of calendar.getAllSubcomponents('vtimezone')) {
    const tzid = zone.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string' && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(zone);
  }
}

/**
 * The busy intervals of one calendar object (a VCALENDAR text) that overlap `range`: recurring
 * events expanded with their exceptions, transparent and cancelled events (or occurrences) left
 * out, tentative ones kept, all-day ones covering the day in `hostZone`.
 */
export function busyIntervalsOf(
  ics: string,
  range: { start: Date; end: Date },
  hostZone: string,
): BusyInterval[] {
  // One object that ical.js cannot read (a bad date, an unknown FREQ, no DTSTART) is left out on
  // its own: throwing would leave the whole connection's busy times out of availability.
  let calendar: Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(ics));
    registerZones(calendar);
  } catch {
    return [];
  }
  const busy: BusyInterval[] = [];
  for (const read of eventReaders(calendar, range, hostZone)) {
    try {
      busy.push(...read());
    } catch {
      // This event only: the others of the object still count.
    }
  }
  return busy;
}

/** One reader per series (with its exceptions) or stand-alone exception of the object. */
function eventReaders(
  calendar: Component,
  range: { start: Date; end: Date },
  hostZone: string,
): Array<() => BusyInterval[]> {
  const vevents = calendar.getAllSubcomponents('vevent');
  const masters = vevents.filter((event) => !event.hasProperty('recurrence-id'));
  const exceptions = vevents.filter((event) => event.hasProperty('recurrence-id'));
  const from = range.start.getTime();
  const to = range.end.getTime();
  const overlaps = (interval: BusyInterval) => interval.start.getTime() < to && interval.end.getTime() > from;

  const series = masters.map((master) => () => {
    const busy: BusyInterval[] = [];
    const uid = master.getFirstPropertyValue('uid');
    const event = new ICAL.Event(master, {
      exceptions: exceptions.filter((exception) => exception.getFirstPropertyValue('uid') === uid),
    });
    if (!event.isRecurring()) {
      if (!blocks(master)) return busy;
      const interval = intervalOf(master, event.startDate, event.endDate, hostZone);
      if (interval && overlaps(interval)) busy.push(interval);
      return busy;
    }
    const startAt = fastForward(master, event, from);
    const iterator = event.iterator(startAt);
    if (startAt) {
      // Occurrences moved (RECURRENCE-ID) from before where the iteration now starts.
      for (const moved of event.exceptions ? Object.values(event.exceptions) : []) {
        if (moved.recurrenceId.compare(startAt) >= 0 || !blocks(moved.component)) continue;
        const interval = intervalOf(moved.component, moved.startDate, moved.endDate, hostZone);
        if (interval && overlaps(interval)) busy.push(interval);
      }
    }
    for (let n = 0; n < MAX_OCCURRENCES; n++) {
      const next = iterator.next();
      if (!next) break;
      const details = event.getOccurrenceDetails(next);
      const item = details.item.component;
      const interval = intervalOf(item, details.startDate, details.endDate, hostZone);
      if (!interval) continue;
      if (interval.start.getTime() >= to) break;
      if (blocks(item) && overlaps(interval)) busy.push(interval);
    }
    return busy;
  });
  // Exceptions whose master is not in this object (some servers split them) stand alone.
  const masterUids = new Set(masters.map((master) => master.getFirstPropertyValue('uid')));
  const orphans = exceptions
    .filter((exception) => !masterUids.has(exception.getFirstPropertyValue('uid')))
    .map((orphan) => () => {
      const event = new ICAL.Event(orphan);
      if (!blocks(orphan)) return [];
      const interval = intervalOf(orphan, event.startDate, event.endDate, hostZone);
      return interval && overlaps(interval) ? [interval] : [];
    });
  return [...series, ...orphans];
}

const utc = (date: Date): Time => ICAL.Time.fromJSDate(date, true);

/** The VCALENDAR a booking becomes: times in UTC, the host as organizer, attendees invited. */
export function eventToICalendar(draft: CalendarEventDraft, now = new Date()): string {
  const calendar = new ICAL.Component(['vcalendar', [], []]);
  calendar.addPropertyWithValue('prodid', '-//sched//calendar connections//EN');
  calendar.addPropertyWithValue('version', '2.0');
  const event = new ICAL.Component('vevent');
  event.addPropertyWithValue('uid', draft.uid);
  event.addPropertyWithValue('dtstamp', utc(now));
  event.addPropertyWithValue('dtstart', utc(draft.start));
  event.addPropertyWithValue('dtend', utc(draft.end));
  event.addPropertyWithValue('summary', draft.title);
  event.addPropertyWithValue('description', draft.description);
  event.addPropertyWithValue('status', 'CONFIRMED');
  event.addPropertyWithValue('transp', 'OPAQUE');
  // A later write of the same booking (a move) must supersede the earlier one in invitees' clients.
  event.addPropertyWithValue('sequence', Math.floor(now.getTime() / 1000) % 2_000_000_000);
  const organizer = event.addPropertyWithValue('organizer', `mailto:${draft.organizer.email}`);
  organizer.setParameter('cn', draft.organizer.name);
  for (const attendee of draft.attendees) {
    const property = event.addPropertyWithValue('attendee', `mailto:${attendee.email}`);
    property.setParameter('cn', attendee.name);
    property.setParameter('role', 'REQ-PARTICIPANT');
    property.setParameter('partstat', 'NEEDS-ACTION');
    property.setParameter('rsvp', 'TRUE');
  }
  calendar.addSubcomponent(event);
  return calendar.toString();
}
