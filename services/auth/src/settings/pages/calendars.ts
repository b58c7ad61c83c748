import type { ConnectionView } from '@sched/calendars/service';
import { calDavFields } from '../../calendars/caldav-fields.ts';
import { reconnectQuery } from '../../calendars/caldav-form.ts';
import { selectionTable } from '../../calendars/pages/selection-table.ts';
import { PROVIDER_NAMES } from '../../calendars/provider-names.ts';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import { alert, formatDate } from '../../web/shell.ts';

export const calendarConnectPath = (provider: string) => `${PATHS.settingsCalendars}/connect/${provider}`;
export const calendarCalDavPath = `${PATHS.settingsCalendars}/caldav`;
export const connectionPath = (id: number) => `${PATHS.settingsCalendars}/${id}`;
export const disconnectPath = (id: number) => `${PATHS.settingsCalendars}/${id}/disconnect`;

export interface CalDavValues {
  serverUrl: string;
  username: string;
}

export interface CalendarsView {
  connections: readonly ConnectionView[];
  csrf: string;
  /** Google / Microsoft as configured: offered only then. */
  oauthProviders: readonly { id: string; label: string }[];
  caldav: CalDavValues;
  caldavError?: string | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}

const csrfInput = (csrf: string) => html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">`;

function statusBadge(connection: ConnectionView): SafeHtml {
  return connection.status === 'active'
    ? html`<span class="badge badge-approved">Active</span>`
    : html`<span class="badge badge-rejected">Needs reconnecting</span>`;
}

function reconnect(connection: ConnectionView, view: CalendarsView): SafeHtml {
  if (connection.status !== 'needs_reauth') return html``;
  if (connection.provider === 'caldav')
    return html`<p>${alert('warn', 'The calendar server no longer accepts the saved password.')}<a class="button secondary small" href="${PATHS.settingsCalendars}?${reconnectQuery(connection.id)}#caldav">Reconnect</a></p>`;
  const offered = view.oauthProviders.some((provider) => provider.id === connection.provider);
  return html`${alert('warn', `${PROVIDER_NAMES[connection.provider]} no longer accepts our access. Reconnect to keep checking it for conflicts.`)}
${offered ? html`<form method="post" action="${calendarConnectPath(connection.provider)}">${csrfInput(view.csrf)}<button type="submit" class="primary small">Reconnect</button></form>` : ''}`;
}

function selectionForm(connection: ConnectionView, view: CalendarsView, headingId: string): SafeHtml {
  if (connection.calendars.length === 0)
    return html`<p class="muted">No calendars found in this account.</p>`;
  return html`<form method="post" action="${connectionPath(connection.id)}">
${csrfInput(view.csrf)}
${selectionTable([connection], {
  labelledBy: headingId,
  noneLabel: `none of the ${PROVIDER_NAMES[connection.provider]} calendars`,
  groupByConnection: false,
})}
<div class="form-actions"><button type="submit" class="primary small">Save calendars</button></div>
</form>`;
}

function connectionItem(connection: ConnectionView, view: CalendarsView): SafeHtml {
  const headingId = `connection-${connection.id}`;
  return html`<li class="invitation calendar-connection">
<div class="invitation-main">
<h2 id="${headingId}">${PROVIDER_NAMES[connection.provider]}: ${connection.account}</h2>
<p class="invitation-meta">${statusBadge(connection)}</p>
${connection.lastSyncError ? alert('error', html`Writing a booking to this calendar failed on ${formatDate(connection.lastSyncError.at)}: ${connection.lastSyncError.message}. It is retried; this clears once a write succeeds.`) : ''}
${reconnect(connection, view)}
${selectionForm(connection, view, headingId)}
</div>
<div class="invitation-actions">
<form method="post" action="${disconnectPath(connection.id)}">
${csrfInput(view.csrf)}
<button type="submit" class="danger small" aria-describedby="${headingId}">Disconnect</button>
</form>
</div>
</li>`;
}

function caldavForm(view: CalendarsView): SafeHtml {
  const error = view.caldavError;
  return html`<section id="caldav" aria-labelledby="caldav-title">
<h2 id="caldav-title">Connect a CalDAV calendar</h2>
<p class="muted">Nextcloud, Fastmail, iCloud (with an app-specific password), Radicale and any other CalDAV server. The server's calendars are found from its address.</p>
${error ? html`<div class="alert alert-error" role="alert" id="caldav-error">${error}</div>` : ''}
<form method="post" action="${calendarCalDavPath}" novalidate>
${csrfInput(view.csrf)}
${calDavFields(view.caldav, Boolean(error))}
<button type="submit" class="primary">Connect CalDAV calendar</button>
</form>
</section>`;
}

export function calendarsPage(view: CalendarsView): SafeHtml {
  return html`<h1>Calendars</h1>
<p class="lead">Scheduling checks the calendars you choose for conflicts, so nobody books you when you are busy, and adds new bookings to one calendar.</p>
${alert('ok', view.notice)}
${alert('error', view.error)}
${
  view.connections.length === 0
    ? html`<div class="empty"><p><strong>No calendars connected.</strong></p><p class="muted">Connect one below.</p></div>`
    : html`<ul class="invitation-list" aria-label="Connected calendars">${view.connections.map((connection) => connectionItem(connection, view))}</ul>`
}
${
  view.oauthProviders.length > 0
    ? html`<section aria-labelledby="oauth-title"><h2 id="oauth-title">Connect an account</h2>
<div class="connect-buttons">${view.oauthProviders.map(
        (provider) =>
          html`<form method="post" action="${calendarConnectPath(provider.id)}">${csrfInput(view.csrf)}<button type="submit" class="secondary">Connect ${provider.label}</button></form>`,
      )}</div></section>`
    : ''
}
${caldavForm(view)}`;
}
