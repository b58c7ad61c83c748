import type { ResourceServer } from '@sched/db/queries/resource-servers';
import { CSRF_FIELD } from '../http/csrf.ts';
import { html, type SafeHtml } from '../pages/html.ts';
import { PATHS } from '../paths.ts';
import type { FieldErrors } from '../web/forms.ts';
import { alert, formatDate } from '../web/shell.ts';
import { adminNav, adminResourceServerPath, auditOf } from './nav.ts';
import { actionForm, inputField } from './widgets.ts';

/**
 * The console's resource servers: services that check tokens at the introspection endpoint and may
 * introspect any token. The list with the create form, and one server (its secret shown once).
 */

export interface ResourceServerFormValues {
  name: string;
  description: string;
}

export interface ResourceServerListView {
  servers: readonly ResourceServer[];
  csrf: string;
  notice?: string | undefined;
  form: ResourceServerFormValues;
  errors: FieldErrors;
}

const hint = (server: ResourceServer) => `…${server.secretHint}`;

export function resourceServerListPage(view: ResourceServerListView): SafeHtml {
  const { form, errors } = view;
  return html`${adminNav('resource-servers')}
<div class="page-head"><div><h1>Resource servers</h1>
<p class="lead">Services that may introspect any access or refresh token at <span class="mono">${PATHS.introspect}</span>, oldest first.</p></div></div>
${alert('ok', view.notice)}
${
  view.servers.length === 0
    ? html`<div class="empty"><p><strong>No resource servers.</strong></p></div>`
    : html`<table class="table" aria-label="Resource servers"><thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Secret</th><th scope="col">Created</th></tr></thead><tbody>
${view.servers.map(
  (
    server,
  ) => html`<tr><td><a href="${adminResourceServerPath(server.id)}">${server.name}</a></td><td class="mono">${server.id}</td>
<td class="mono">${hint(server)}</td><td>${formatDate(server.createdAt)}</td></tr>`,
)}
</tbody></table>`
}
<section aria-labelledby="create-title"><h2 id="create-title">Register a resource server</h2>
<form method="post" action="${PATHS.adminResourceServers}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
${inputField({ id: 'rs-name', name: 'name', label: 'Name', value: form.name, max: 200, error: errors.name })}
<div class="field"><label for="rs-description">Description (optional)</label>
<textarea id="rs-description" name="description" rows="2" maxlength="1000"${errors.description ? html` aria-invalid="true" aria-describedby="rs-description-error"` : ''}>${form.description}</textarea>
${errors.description ? html`<span class="field-error" id="rs-description-error">${errors.description}</span>` : ''}</div>
<div class="form-actions"><button type="submit" class="primary">Register</button></div>
</form></section>`;
}

export interface ResourceServerView {
  server: ResourceServer;
  csrf: string;
  /** The secret of a server just registered, shown this once. */
  revealed?: string | undefined;
  /** The page was opened with a reveal link that was already used. */
  revealGone?: boolean;
}

function revealPanel(secret: string): SafeHtml {
  return html`<section class="reveal" aria-labelledby="reveal-title">
<h2 id="reveal-title">The resource server's secret</h2>
<p><strong>Copy it now: it will not be shown again.</strong> Only its hash is kept. If it is lost, delete this resource server and register a new one.</p>
<div class="copy-row">
<input id="new-secret" class="mono" type="text" readonly value="${secret}" aria-label="Resource server secret" spellcheck="false">
<button type="button" class="secondary" data-copy="new-secret" hidden>Copy</button>
</div>
</section>`;
}

export function resourceServerPage(view: ResourceServerView): SafeHtml {
  const { server } = view;
  return html`${adminNav('resource-servers')}
<div class="page-head"><div><h1>${server.name}</h1><p class="muted mono">${server.id}</p></div></div>
${view.revealed ? revealPanel(view.revealed) : ''}
${view.revealGone ? alert('warn', 'The secret was shown once and cannot be shown again.') : ''}
<dl class="kvs">
<div class="kv"><dt>Id (client_id)</dt><dd class="mono">${server.id}</dd></div>
<div class="kv"><dt>Secret</dt><dd class="mono">${hint(server)}</dd></div>
<div class="kv"><dt>Description</dt><dd>${server.description ?? html`<span class="muted">Not given</span>`}</dd></div>
<div class="kv"><dt>Created</dt><dd>${formatDate(server.createdAt)}${server.createdByUserId === null ? '' : ` by user #${server.createdByUserId}`}</dd></div>
</dl>
<p class="hint">It authenticates at <span class="mono">${PATHS.introspect}</span> with its id as client_id and its secret as client_secret (HTTP Basic or in the body).</p>
<h2>Delete</h2>
<div class="admin-actions">${actionForm(adminResourceServerPath(server.id, 'delete'), view.csrf, 'Delete resource server', 'danger')}</div>
<p class="hint">Its credentials stop working at once.</p>
<p><a href="${auditOf('resource_server', server.id)}">This resource server's audit events</a></p>`;
}
