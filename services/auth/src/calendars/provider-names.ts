import type { CalendarProvider } from '@sched/calendars/connector';

/** What each calendar provider is called on the pages (settings, onboarding step). */
export const PROVIDER_NAMES: Record<CalendarProvider, string> = {
  caldav: 'CalDAV',
  google: 'Google Calendar',
  microsoft: 'Outlook Calendar',
};
