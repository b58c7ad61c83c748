import type { ConnectionView } from '@sched/calendars/service';
import type { Params } from '../http/params.ts';

/** Form field names: one name per box (repeated names are refused by the form reader). */
export const conflictField = (calendarId: number) => `conflicts.${calendarId}`;
/** The destination's radio group: a calendar id, or '' for none of them. */
export const DESTINATION_FIELD = 'destination';

/**
 * The calendars checked for conflicts and the destination, as a form posted them: an unticked box
 * is absent from the form, so every calendar of the connection gets an explicit value.
 */
export function selectionFromForm(connection: ConnectionView, form: Params) {
  const destination = form[DESTINATION_FIELD] ?? '';
  return connection.calendars.map((calendar) => ({
    id: calendar.id,
    checkForConflicts: form[conflictField(calendar.id)] === 'on',
    isDestination: destination === String(calendar.id),
  }));
}

/**
 * Whether a form carries a choice of calendars: a browser always sends the destination group (one
 * of its radios, "none" included, is always checked). A form posted without it (a client that
 * sends only the step's action) leaves the current choice as it is.
 */
export function postsSelection(form: Params): boolean {
  return form[DESTINATION_FIELD] !== undefined;
}
