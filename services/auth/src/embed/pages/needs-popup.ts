import { html, type SafeHtml } from '../../pages/html.ts';

/** Shown in the frame when the browser refuses it cookies; the component then offers the popup. */
export function needsPopupPage(): SafeHtml {
  return html`<h1>Continue in a new window</h1>
<p class="lead">Your browser blocks signing in inside this dialog. Continue in a new Scheduling window to finish; you will come back here afterwards.</p>`;
}
