import { calendarFetch } from '@sched/calendars/outbound';
import type { CalendarService } from '@sched/calendars/service';
import type { OutboundFetch } from '@sched/kit/outbound';
import type { AuthDeps } from '../deps.ts';
import { enforceUserRouteLimit } from '../web/route-limit.ts';

/**
 * The calendar library's service as the pages call it: the runtime's, the same one behind the
 * `/v2/calendars` routes. The settings page and the onboarding step never touch connections or
 * credentials themselves.
 */
export const calendarService = (deps: AuthDeps): CalendarService => deps.runtime.calendars;

/**
 * Counts a CalDAV connection attempt of the page's user under the `POST /v2/calendars/caldav`
 * limit's own key (one allowance across the API and the pages); 429 once over it.
 */
export const countCalDavAttempt = (deps: AuthDeps, userId: number): Promise<void> =>
  enforceUserRouteLimit(deps, userId, 'caldav-connections', 'CalDAV connection attempts');

/** The connect flow's token exchange goes through the outbound module, as every server-side request. */
const fetches = new WeakMap<AuthDeps, OutboundFetch>();
export function oauthFetch(deps: AuthDeps): OutboundFetch {
  let fetchOut = fetches.get(deps);
  if (!fetchOut) {
    fetchOut = calendarFetch(deps.runtime.config.outboundPrivateNetworks);
    fetches.set(deps, fetchOut);
  }
  return fetchOut;
}
