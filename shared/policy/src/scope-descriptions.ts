// Plain-words text for each scope, shown on the consent page.
import type { KnownScope } from './scopes.ts';

export const SCOPE_DESCRIPTIONS: Readonly<Record<KnownScope, string>> = {
  EVENT_TYPE_READ: 'Read your event types',
  EVENT_TYPE_WRITE: 'Create, change and delete your event types',
  BOOKING_READ: 'Read your bookings',
  BOOKING_WRITE: 'Create, change and cancel your bookings',
  SCHEDULE_READ: 'Read your availability schedules',
  SCHEDULE_WRITE: 'Create, change and delete your availability schedules',
  APPS_READ: 'See your connected apps',
  APPS_WRITE: 'Connect, configure and disconnect your apps',
  PROFILE_READ: 'Read your profile and booking limits',
  PROFILE_WRITE: 'Change your profile and booking limits',
  TEAM_EVENT_TYPE_READ: "Read your teams' event types",
  TEAM_EVENT_TYPE_WRITE: "Create, change and delete your teams' event types",
  TEAM_BOOKING_READ: "Read your teams' bookings",
  TEAM_BOOKING_WRITE: "Create, change and cancel your teams' bookings",
  TEAM_SCHEDULE_READ: "Read your teams' schedules",
  TEAM_SCHEDULE_WRITE: "Create, change and delete your teams' schedules",
  TEAM_PROFILE_READ: "Read your teams' profiles",
  TEAM_PROFILE_WRITE: "Change your teams' profiles",
  TEAM_MEMBERSHIP_READ: "See your teams' members and their roles",
  TEAM_MEMBERSHIP_WRITE: "Add, change and remove your teams' members",
  ORG_EVENT_TYPE_READ: "Read event types across your organization's teams",
  ORG_EVENT_TYPE_WRITE: "Create, change and delete event types across your organization's teams",
  ORG_BOOKING_READ: 'Read bookings across your organization',
  ORG_BOOKING_WRITE: 'Create, change and cancel bookings across your organization',
  ORG_SCHEDULE_READ: 'Read schedules across your organization',
  ORG_SCHEDULE_WRITE: 'Create, change and delete schedules across your organization',
  ORG_PROFILE_READ: "Read your organization's profile and its teams",
  ORG_PROFILE_WRITE: "Change your organization's profile and its teams",
  ORG_MEMBERSHIP_READ: "See your organization's members and their roles",
  ORG_MEMBERSHIP_WRITE: "Add, change and remove your organization's members",
  READ_BOOKING: 'Read your bookings',
  READ_PROFILE: 'Read your profile',
  openid: 'Sign you in with your account (your user id)',
  profile: 'See your name, username, time zone and language',
  email: 'See your e-mail address and whether it is verified',
};

/** Description for a scope; unknown values are echoed back rather than hidden. */
export const describeScope = (scope: string): string =>
  Object.hasOwn(SCOPE_DESCRIPTIONS, scope) ? SCOPE_DESCRIPTIONS[scope as KnownScope] : scope;
