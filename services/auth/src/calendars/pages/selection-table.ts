import type { ConnectionView } from '@sched/calendars/service';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PROVIDER_NAMES } from '../provider-names.ts';
import { conflictField, DESTINATION_FIELD } from '../selection.ts';

export interface SelectionTableOptions {
  /** The id of the heading that names the table. */
  labelledBy: string;
  /** What the "none" destination row names (the connection, or all of them). */
  noneLabel: string;
  /** A heading row per connection (a table over several connections). */
  groupByConnection: boolean;
}

function calendarRow(calendar: ConnectionView['calendars'][number]): SafeHtml {
  return html`<tr>
<td>${calendar.name}${calendar.readOnly ? html` <span class="muted">(read-only)</span>` : ''}</td>
<td><input type="checkbox" name="${conflictField(calendar.id)}" value="on" aria-label="Check ${calendar.name} for conflicts"${calendar.checkForConflicts ? html` checked` : ''}></td>
<td>${
    calendar.readOnly
      ? html`<span class="muted">—</span>`
      : html`<input type="radio" name="${DESTINATION_FIELD}" value="${String(calendar.id)}" aria-label="Add new bookings to ${calendar.name}"${calendar.isDestination ? html` checked` : ''}>`
  }</td>
</tr>`;
}

/**
 * The calendars of one or more connections: a box per calendar for "check for conflicts" and one
 * radio group for the destination (read-only calendars cannot be one), with a "none" row. The
 * settings page shows one table per connection; the onboarding step one over all of them.
 */
export function selectionTable(
  connections: readonly ConnectionView[],
  options: SelectionTableOptions,
): SafeHtml {
  const noDestination = connections.every((connection) =>
    connection.calendars.every((calendar) => !calendar.isDestination),
  );
  return html`<table class="table" aria-labelledby="${options.labelledBy}">
<thead><tr><th scope="col">Calendar</th><th scope="col">Check for conflicts</th><th scope="col">New bookings go here</th></tr></thead>
<tbody>${connections.map(
    (connection) =>
      html`${options.groupByConnection ? html`<tr><th scope="rowgroup" colspan="3">${PROVIDER_NAMES[connection.provider]}: ${connection.account}</th></tr>` : ''}${connection.calendars.map(calendarRow)}`,
  )}
<tr><td colspan="2" class="muted">None of these calendars</td><td><input type="radio" name="${DESTINATION_FIELD}" value="" aria-label="Add new bookings to ${options.noneLabel}"${noDestination ? html` checked` : ''}></td></tr>
</tbody>
</table>`;
}
