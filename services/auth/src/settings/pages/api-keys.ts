import type { ApiKeySummary } from '@sched/db/queries/api-keys';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import { alert, formatDate } from '../../web/shell.ts';

export const apiKeyRevokePath = (id: number) => `${PATHS.settingsApiKeys}/${id}/revoke`;

export interface ApiKeysView {
  keys: readonly ApiKeySummary[];
  csrf: string;
  emailVerified: boolean;
  /** A key just created, shown this once. */
  revealed?: string | undefined;
  /** The page was opened with a reveal link that was already used. */
  revealGone?: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}

function revealPanel(key: string): SafeHtml {
  return html`<section class="reveal" aria-labelledby="reveal-title">
<h2 id="reveal-title">Your new API key</h2>
<p><strong>Copy it now: it will not be shown again.</strong> Anyone who has it can act as you through the API, so keep it where your scripts keep their credentials. If you lose it, create a new one and revoke this one.</p>
<div class="copy-row">
<input id="new-api-key" class="mono" type="text" readonly value="${key}" aria-label="API key" spellcheck="false">
<button type="button" class="secondary" data-copy="new-api-key" hidden>Copy</button>
</div>
</section>`;
}

const lastUsed = (value: Date | null) => (value ? formatDate(value) : html`<span class="muted">Never</span>`);

function keyTable(view: ApiKeysView): SafeHtml {
  if (view.keys.length === 0)
    return html`<div class="empty"><p><strong>No API keys.</strong></p><p class="muted">Create one to call the API from your own scripts.</p></div>`;
  return html`<table class="table" aria-label="API keys">
<thead><tr><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${view.keys.map(
    (key) => html`<tr>
<td class="mono" id="api-key-${key.id}">svc_…${key.hint}</td>
<td>${formatDate(key.createdAt)}</td>
<td>${lastUsed(key.lastUsedAt)}</td>
<td class="cell-action"><form method="post" action="${apiKeyRevokePath(key.id)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<button type="submit" class="danger-link" aria-describedby="api-key-${key.id}">Revoke</button>
</form></td>
</tr>`,
  )}</tbody>
</table>`;
}

export function apiKeysPage(view: ApiKeysView): SafeHtml {
  return html`<div class="section-head"><h1>API keys</h1>
${
  view.emailVerified
    ? html`<form method="post" action="${PATHS.settingsApiKeys}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<button type="submit" class="primary small">Create API key</button>
</form>`
    : ''
}</div>
<p class="lead">Keys let your own scripts call the API as you (<code>Authorization: Bearer svc_…</code>). A revoked key stops working at once.</p>
${view.revealed ? revealPanel(view.revealed) : ''}
${view.revealGone ? alert('warn', 'That key was shown once and cannot be shown again. If you did not copy it, create a new one and revoke the old one.') : ''}
${alert('ok', view.notice)}
${alert('error', view.error)}
${view.emailVerified ? '' : alert('warn', html`Verify your e-mail address first: API keys can be created once it is verified. <a href="${PATHS.settingsProfile}">Resend the verification e-mail</a>`)}
${keyTable(view)}`;
}
