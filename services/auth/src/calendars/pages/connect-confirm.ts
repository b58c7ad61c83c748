import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';

export interface ConnectConfirmView {
  /** The provider's name, e.g. "Google Calendar". */
  label: string;
  /** The e-mail address of the account the calendar would be connected to. */
  email: string;
  /** Where the form posts (the page's own path). */
  action: string;
  ticket: string;
  csrf: string;
}

/**
 * The onboarding step's window asks before it leaves for the provider: the link carries a ticket
 * of one account, and whoever is sent the link would otherwise connect their own calendar to it.
 * The page names that account, and only its form (with a CSRF token of this browser) goes on.
 */
export function connectConfirmPage(view: ConnectConfirmView): SafeHtml {
  return html`<h1>Connect ${view.label}</h1>
<p class="lead">Your ${view.label} will be connected to the scheduling account <strong>${view.email}</strong>: it will be checked for conflicts and new bookings will be added to it.</p>
<p class="fineprint">If this is not your account, or you did not start this from the set-up, close this window.</p>
<form method="post" action="${view.action}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<input type="hidden" name="ticket" value="${view.ticket}">
<div class="form-actions"><button type="submit" class="primary">Continue to ${view.label}</button></div>
</form>`;
}
