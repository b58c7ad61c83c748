import type { ConnectedApp } from '@sched/clients/connected-apps';
import { SCOPE_DESCRIPTIONS } from '@sched/policy/scope-descriptions';
import { isKnownScope } from '@sched/policy/scopes';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import { alert, formatDate } from '../../web/shell.ts';

export const connectedAppRevokePath = (clientId: string) =>
  `${PATHS.settingsConnectedApps}/${encodeURIComponent(clientId)}/revoke`;

export interface ConnectedAppsView {
  apps: readonly ConnectedApp[];
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
}

/** A scope in plain words (the consent page's wording); an unknown one as it is. */
export const scopeWords = (scope: string): string =>
  isKnownScope(scope) ? SCOPE_DESCRIPTIONS[scope] : scope;

function appItem(app: ConnectedApp, view: ConnectedAppsView, index: number): SafeHtml {
  const headingId = `app-${index}`;
  return html`<li class="invitation connected-app">
<div class="invitation-main">
<h2 id="${headingId}">${app.logo ? html`<img class="app-logo" src="${app.logo}" alt="" width="32" height="32"> ` : ''}${app.name}</h2>
<p class="invitation-meta">${app.websiteUrl ? html`<a href="${app.websiteUrl}" rel="noopener noreferrer" target="_blank">${app.websiteUrl}</a> ` : ''}<span class="muted">Authorized ${formatDate(app.grantedAt)}</span> <span class="muted">Last used ${app.lastUsedAt ? formatDate(app.lastUsedAt) : 'never'}</span></p>
${
  app.scopes.length > 0
    ? html`<p class="muted small-text">It may:</p><ul class="scope-list">${app.scopes.map((scope) => html`<li>${scopeWords(scope)}</li>`)}</ul>`
    : html`<p class="muted small-text">Access as a legacy application (not limited to listed items).</p>`
}
</div>
<div class="invitation-actions">
<form method="post" action="${connectedAppRevokePath(app.clientId)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<button type="submit" class="danger small" aria-describedby="${headingId}">Revoke access</button>
</form>
</div>
</li>`;
}

export function connectedAppsPage(view: ConnectedAppsView): SafeHtml {
  return html`<h1>Connected apps</h1>
<p class="lead">Applications you allowed to use your account. Revoking access signs the app out at once; it has to ask you again to get back in.</p>
${alert('ok', view.notice)}
${alert('error', view.error)}
${
  view.apps.length === 0
    ? html`<div class="empty"><p><strong>No connected apps.</strong></p><p class="muted">When you allow an application to use your account, it appears here.</p></div>`
    : html`<ul class="invitation-list" aria-label="Connected apps">${view.apps.map((app, index) => appItem(app, view, index))}</ul>`
}`;
}
