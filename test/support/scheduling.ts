// Set-up for the scheduling tests and benches on top of ./factories.ts: hosts, memberships, event
// types, schedules and limits straight through the query modules (no HTTP needed).
import { patchBookingLimits } from '@sched/db/queries/booking-limits';
import { createPersonalEventType, createTeamEventType, type EventType } from '@sched/db/queries/event-types';
import { replaceDefaultAvailability } from '@sched/db/queries/schedules';
import type { User, Weekday } from '@sched/db/queries/users';
import type { AvailabilityRule } from '@sched/policy/availability';
import type { BookingLimitSet } from '@sched/policy/booking-periods';
import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { insertMembership, insertOrganization, insertUser, type RoleName } from './factories.ts';

let sequence = 0;
const next = () => `${process.pid}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;

/** A host: a user (see insertUser) without password or API key; returns its row. */
export async function makeUser(
  knex: Knex,
  options: { timeZone?: string; weekStart?: Weekday; name?: string } = {},
): Promise<User> {
  const id = next();
  const made = await insertUser(knex, {
    email: `host-${id}@example.com`,
    name: options.name ?? `Host ${id}`,
    timeZone: options.timeZone ?? 'UTC',
    weekStart: options.weekStart ?? 'Monday',
    password: null,
    withApiKey: false,
  });
  return made.user;
}

/** A membership (accepted MEMBER unless told otherwise) of the organization or team. */
export async function addMembership(
  knex: Knex,
  userId: number,
  target: { organizationId?: number; teamId?: number },
  options: { role?: RoleName; accepted?: boolean } = {},
): Promise<void> {
  await insertMembership(knex, {
    userId,
    ...target,
    role: options.role ?? 'MEMBER',
    accepted: options.accepted ?? true,
  });
}

/** A user with an accepted organization membership (what booking limits require). */
export async function makeOrganizationMember(
  knex: Knex,
  options: Parameters<typeof makeUser>[1] = {},
): Promise<User> {
  const user = await makeUser(knex, options);
  await addMembership(knex, user.id, { organizationId: await insertOrganization(knex) });
  return user;
}

/** Every day, all day: availability never gets in the way of limit tests. */
export const ALWAYS: AvailabilityRule[] = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({
  weekday,
  startTime: '00:00',
  endTime: '24:00',
}));

export async function setAvailability(
  knex: Knex,
  user: User,
  rules: AvailabilityRule[] = ALWAYS,
): Promise<void> {
  await replaceDefaultAvailability(knex, user.id, user.timeZone, rules);
}

export async function setLimits(knex: Knex, userId: number, limits: Partial<BookingLimitSet>): Promise<void> {
  await patchBookingLimits(knex, userId, limits);
}

export async function personalEventType(
  knex: Knex,
  ownerId: number,
  options: { lengthInMinutes?: number; bookingLimits?: Partial<BookingLimitSet> } = {},
): Promise<EventType> {
  return createPersonalEventType(knex, ownerId, {
    title: 'Meeting',
    slug: `meeting-${next()}`,
    lengthInMinutes: options.lengthInMinutes ?? 30,
    bookingLimits: options.bookingLimits,
  });
}

export async function teamEventType(
  knex: Knex,
  teamId: number,
  hostUserIds: number[],
  options: { lengthInMinutes?: number; bookingLimits?: Partial<BookingLimitSet> } = {},
): Promise<EventType> {
  return createTeamEventType(knex, teamId, {
    title: 'Team meeting',
    slug: `team-meeting-${next()}`,
    lengthInMinutes: options.lengthInMinutes ?? 30,
    bookingLimits: options.bookingLimits,
    hostUserIds,
  });
}

export const attendee = { name: 'Ada Attendee', email: 'ada@example.com', timeZone: 'Europe/London' };

/** A wall-clock time in a zone as a Date. */
export const localTime = (iso: string, zone: string): Date => DateTime.fromISO(iso, { zone }).toJSDate();

/** Far enough in the future that no test date is ever in the past. */
export const FUTURE_YEAR = 2031;
/** "Now" for service-level tests that book fixed dates (the service refuses past slots). */
export const TEST_NOW = Date.UTC(2025, 0, 1);
