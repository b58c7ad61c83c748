import { html, type SafeHtml } from '../pages/html.ts';

/**
 * The CalDAV form's fields, the same in settings and in the onboarding step: Server URL, Username
 * and Password (never echoed back). With `error`, they point at the alert whose id is `caldav-error`.
 */
export function calDavFields(values: { serverUrl: string; username: string }, error: boolean): SafeHtml {
  const invalid = error ? html` aria-invalid="true" aria-describedby="caldav-error"` : '';
  return html`<div class="field">
<label for="serverUrl">Server URL</label>
<input id="serverUrl" name="serverUrl" type="url" inputmode="url" autocomplete="url" required placeholder="https://cloud.example.com" value="${values.serverUrl}"${invalid}>
</div>
<div class="field">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" required value="${values.username}"${invalid}>
</div>
<div class="field">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${invalid}>
</div>`;
}
