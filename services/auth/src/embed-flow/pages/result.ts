import { html, type SafeHtml } from '../../pages/html.ts';

/**
 * The last page of the flow, under the message the script posts: what the user sees for the
 * moment before the dialog closes (or when the embedding page went away).
 */
export function allowedPage(clientName: string): SafeHtml {
  return html`<div class="done-mark" aria-hidden="true">\u2713</div>
<h1>You're all set</h1>
<p class="lead">Returning to <strong>${clientName}</strong>…</p>`;
}

export function deniedPage(clientName: string): SafeHtml {
  return html`<h1>Access not granted</h1>
<p class="lead"><strong>${clientName}</strong> was not given access to your account. Returning…</p>`;
}
