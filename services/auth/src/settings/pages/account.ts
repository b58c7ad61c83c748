import type { User } from '@sched/db/queries/users';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';

/** Plain names of the calendar the onboarding step recorded (users.calendar_provider); the connections themselves are on the Calendars page. */
const CALENDARS: Record<string, string> = {
  google: 'Google Calendar',
  outlook: 'Outlook Calendar',
  apple: 'Apple Calendar',
  caldav: 'CalDAV calendar',
};

export const calendarLabel = (provider: string | null): string =>
  provider === null ? 'Not connected' : (CALENDARS[provider] ?? provider);

export function accountPage(user: User): SafeHtml {
  const row = (label: string, value: SafeHtml | string) =>
    html`<div class="kv"><dt>${label}</dt><dd>${value}</dd></div>`;
  const muted = (text: string) => html`<span class="muted">${text}</span>`;
  return html`<h1>Account</h1>
<p class="lead">Your profile as applications you authorize see it. <a href="${PATHS.settingsProfile}">Edit profile</a></p>
<dl class="kvs">
${row('Name', user.name ?? muted('Not set'))}
${row('Username', user.username ?? muted('Not set'))}
${row('Email', html`${user.email} ${user.emailVerifiedAt ? html`<span class="badge badge-approved">Verified</span>` : html`<span class="badge badge-pending">Not verified</span>`}`)}
${row('Time zone', user.timeZone)}
${row('Week starts on', user.weekStart)}
${row('Calendar', html`${user.calendarProvider === null ? muted(calendarLabel(null)) : calendarLabel(user.calendarProvider)} <a href="${PATHS.settingsCalendars}">Manage calendars</a>`)}
</dl>`;
}
