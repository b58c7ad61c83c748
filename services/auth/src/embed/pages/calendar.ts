import type { ConnectionView } from '@sched/calendars/service';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { interactionPath } from '../../paths.ts';
import { progress } from '../../embed-flow/pages/progress.ts';
import { calDavFields } from '../../calendars/caldav-fields.ts';
import { reconnectQuery } from '../../calendars/caldav-form.ts';
import { selectionTable } from '../../calendars/pages/selection-table.ts';
import { PROVIDER_NAMES } from '../../calendars/provider-names.ts';

export const calendarCalDavStepPath = (uid: string) => `${interactionPath(uid, 'calendar')}/caldav`;

export interface CalendarView {
  uid: string;
  csrf: string;
  connections: readonly ConnectionView[];
  /** Google / Microsoft (when configured): a link that opens the provider in a new window. */
  oauthLinks: readonly { provider: ConnectionView['provider']; label: string; href: string }[];
  /** Prefilled (server URL, username) when a CalDAV Reconnect opened the form; never the password. */
  caldav: { serverUrl: string; username: string };
  caldavError?: string;
  error?: string;
}

/**
 * A connection whose credentials the provider refuses gets Reconnect, as on the settings page:
 * CalDAV reopens the step's CalDAV form with its server URL and username filled in (a new password
 * connects the same account again); Google / Microsoft open the provider's window as Connect does
 * (when the provider is still configured), whose flow ends on the window's page saying to return here.
 */
function reconnect(connection: ConnectionView, view: CalendarView, describedBy: string): SafeHtml {
  if (connection.status !== 'needs_reauth') return html``;
  if (connection.provider === 'caldav') {
    const href = `${interactionPath(view.uid)}?${reconnectQuery(connection.id)}#caldav`;
    return html`<a class="button secondary small" href="${href}" aria-describedby="${describedBy}">Reconnect</a>`;
  }
  const link = view.oauthLinks.find((candidate) => candidate.provider === connection.provider);
  if (!link) return html``;
  return html`<a class="button secondary small" href="${link.href}" target="_blank" rel="noopener" aria-describedby="${describedBy}">Reconnect</a>`;
}

function connectionList(view: CalendarView): SafeHtml {
  if (view.connections.length === 0) return html``;
  return html`<ul class="calendar-list" aria-label="Connected calendars">${view.connections.map(
    (connection) => {
      const nameId = `connection-${connection.id}`;
      const name = html`<span id="${nameId}">${PROVIDER_NAMES[connection.provider]}: ${connection.account}</span>`;
      // Connected only while active: one that needs reconnecting says so, as on the settings page.
      return connection.status === 'active'
        ? html`<li><span class="check-mark" aria-hidden="true">✓</span> ${name}</li>`
        : html`<li>${name} <span class="badge badge-rejected">Needs reconnecting</span>${reconnect(connection, view, nameId)}</li>`;
    },
  )}</ul>`;
}

/**
 * Which calendars are checked for conflicts and where new bookings go, over every connection
 * (the defaults ticked), saved with Continue.
 */
function selection(view: CalendarView): SafeHtml {
  const withCalendars = view.connections.filter((connection) => connection.calendars.length > 0);
  if (withCalendars.length === 0) return html``;
  return html`<h2 id="calendar-choice">Choose your calendars</h2>
${selectionTable(withCalendars, {
  labelledBy: 'calendar-choice',
  noneLabel: 'none of these calendars',
  groupByConnection: withCalendars.length > 1,
})}`;
}

function caldavForm(view: CalendarView): SafeHtml {
  // Open when it is the only way to connect, after a refusal, and for a CalDAV Reconnect.
  const open = view.caldavError || view.oauthLinks.length === 0 || view.caldav.username !== '';
  return html`<details class="caldav" id="caldav"${open ? html` open` : ''}>
<summary>Connect a CalDAV calendar</summary>
${view.caldavError ? html`<div class="alert alert-error" role="alert" id="caldav-error">${view.caldavError}</div>` : ''}
<form method="post" action="${calendarCalDavStepPath(view.uid)}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
${calDavFields(view.caldav, Boolean(view.caldavError))}
<button type="submit" class="secondary block">Connect CalDAV calendar</button>
</form>
</details>`;
}

/**
 * The onboarding calendar step: connect CalDAV here, or Google / Microsoft in a new
 * window (providers refuse to be framed), choose the calendars checked for conflicts and the
 * destination (as settings does), then Continue to consent. Works without JavaScript: the
 * provider window ends on a page saying to come back, and Refresh shows the new connection.
 * Continue comes first in the form (Enter submits it); the stylesheet shows Skip on the left.
 */
export function calendarPage(view: CalendarView): SafeHtml {
  const connected = view.connections.length > 0;
  return html`${progress('Calendar')}
<h1>Connect your calendar</h1>
<p class="lead">Scheduling checks it for conflicts so nobody books you when you are busy, and adds your bookings to it.</p>
${view.error ? html`<div class="alert alert-error" role="alert" id="calendar-error">${view.error}</div>` : ''}
${connectionList(view)}
${
  view.oauthLinks.length > 0
    ? html`<div class="provider-links">${view.oauthLinks.map(
        (link) =>
          html`<p><a class="button secondary block" href="${link.href}" target="_blank" rel="noopener">Connect ${link.label}</a></p>`,
      )}
<p class="fineprint">Opens in a new window. When you have finished there, <a href="${interactionPath(view.uid)}">Refresh</a> this step.</p></div>`
    : ''
}
${caldavForm(view)}
<form method="post" action="${interactionPath(view.uid, 'calendar')}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
${selection(view)}
<div class="actions">
${
  connected
    ? html`<button type="submit" name="action" value="continue" class="primary">Continue</button>`
    : html`<button type="submit" name="action" value="skip" class="secondary">Skip for now</button>`
}
</div>
</form>
<p class="cancel-row"><button type="button" class="link-button" data-embed-close>Cancel</button></p>`;
}
