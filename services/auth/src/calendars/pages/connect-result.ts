import { html, type SafeHtml } from '../../pages/html.ts';

/** Why a connect flow ended without a connection (the settings page shows the same words). */
export type ConnectProblem = 'denied' | 'partial' | 'expired' | 'refused' | 'unavailable';

export function connectProblemMessage(label: string, problem: ConnectProblem): string {
  switch (problem) {
    case 'denied':
      return `You did not allow access to ${label}. Nothing was connected.`;
    case 'partial':
      return `You allowed only part of the access to ${label} that scheduling needs (your calendars, free/busy and adding events). Nothing was connected: start again and allow each one.`;
    case 'expired':
      return `This connection attempt expired or was started in another browser. Start again to connect ${label}.`;
    case 'refused':
      return `${label} refused the connection. Start again to connect it.`;
    case 'unavailable':
      return `${label} could not be reached. Try again in a moment.`;
  }
}

/**
 * The page of the onboarding step's window at the end of the flow: the step itself (in the
 * site's dialog) shows the new connection once the user returns to it.
 */
export function connectResultPage(label: string, problem?: ConnectProblem): SafeHtml {
  if (problem)
    return html`<h1>${label} not connected</h1>
<div class="alert alert-error" role="alert">${connectProblemMessage(label, problem)}</div>
<p class="fineprint">Close this window and return to the set-up.</p>`;
  return html`<h1>${label} connected</h1>
<p class="lead">Scheduling now checks it for conflicts and adds new bookings to it.</p>
<p class="fineprint">Close this window and return to the set-up: choose <strong>Refresh</strong> there to see the calendar.</p>`;
}
