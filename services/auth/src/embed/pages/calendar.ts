import type { CalendarProvider } from '@sched/policy/onboarding';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { interactionPath } from '../../paths.ts';
import { progress } from '../../embed-flow/pages/progress.ts';

/** How each provider is shown: a name and a small mark (letters, no third-party logos). */
export const PROVIDER_LABELS: Record<CalendarProvider, { name: string; mark: string }> = {
  google: { name: 'Google Calendar', mark: 'G' },
  outlook: { name: 'Outlook', mark: 'O' },
  apple: { name: 'Apple Calendar', mark: 'A' },
  caldav: { name: 'CalDAV', mark: 'C' },
};

export interface CalendarView {
  uid: string;
  csrf: string;
  selected: CalendarProvider | null;
  error?: string;
}

/** Continue comes first in the form (Enter submits it); the stylesheet shows Skip on the left. */
export function calendarPage(view: CalendarView): SafeHtml {
  const entries = Object.entries(PROVIDER_LABELS) as Array<
    [CalendarProvider, { name: string; mark: string }]
  >;
  return html`${progress('Calendar')}
<h1>Connect your calendar</h1>
<p class="lead">Scheduling checks it for conflicts so nobody books you when you are busy.</p>
${view.error ? html`<div class="alert alert-error" role="alert" id="calendar-error">${view.error}</div>` : ''}
<form method="post" action="${interactionPath(view.uid, 'calendar')}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<fieldset class="providers"${view.error ? html` aria-describedby="calendar-error"` : ''}>
<legend>Calendar provider</legend>
${entries.map(
  ([id, label]) => html`<div class="provider">
<input type="radio" id="provider-${id}" name="provider" value="${id}"${view.selected === id ? html` checked` : ''}>
<label for="provider-${id}"><span class="provider-mark provider-${id}" aria-hidden="true">${label.mark}</span>${label.name}</label>
</div>`,
)}
</fieldset>
<p class="fineprint">You will finish connecting the calendar in your Scheduling settings; for now we remember your choice.</p>
<div class="actions">
<button type="submit" name="action" value="connect" class="primary">Continue</button>
<button type="submit" name="action" value="skip" class="secondary">Skip for now</button>
</div>
</form>
<p class="cancel-row"><button type="button" class="link-button" data-embed-close>Cancel</button></p>`;
}
