import type { PresentedClient } from '@sched/clients/present';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import { ownerLabel } from '../../web/clients.ts';
import type { Page } from '../../web/paging.ts';
import { pager } from '../../web/pager.ts';
import { alert, formatDate, statusBadge } from '../../web/shell.ts';

export const clientPath = (clientId: string, rest = '') =>
  `${PATHS.settingsClients}/${encodeURIComponent(clientId)}${rest}`;

export interface ClientListView {
  clients: readonly PresentedClient[];
  /** Names of the clients' organizations. */
  organizations: ReadonlyMap<number, string>;
  page: Page;
  hasMore: boolean;
  notice?: string | undefined;
}

function emptyState(view: ClientListView): SafeHtml {
  if (view.page.skip > 0)
    return html`<div class="empty"><p><strong>No clients on this page.</strong></p><p class="muted"><a href="${PATHS.settingsClients}">Back to the newest clients</a></p></div>`;
  return html`<div class="empty"><p><strong>No OAuth clients yet.</strong></p><p class="muted">Create one to let your application use the Scheduling API on behalf of its users. A service administrator reviews every new client.</p></div>`;
}

export function clientListPage(view: ClientListView): SafeHtml {
  const { clients } = view;
  return html`<div class="page-head">
<div><h1>OAuth clients</h1>
<p class="lead">Applications that sign people in with their Scheduling account: yours and your organizations'.</p></div>
<a class="button primary" href="${PATHS.settingsClients}/new">New client</a>
</div>
${alert('ok', view.notice)}
${
  clients.length === 0
    ? emptyState(view)
    : html`<ul class="client-list">${clients.map(
        (client) => html`<li>
<a class="client-row" href="${clientPath(client.id)}">
<span class="client-main"><strong>${client.name}</strong><span class="muted mono">${client.id}</span></span>
<span class="client-meta">${statusBadge(client.reviewStatus)}<span class="owner-tag">${ownerLabel(client.organizationId, view.organizations)}</span><span class="muted">${client.clientType === 'public' ? 'Public' : 'Confidential'} · created ${formatDate(client.createdAt)}</span></span>
</a>
${client.reviewStatus === 'REJECTED' && client.rejectionReason ? html`<p class="reason"><strong>Rejected:</strong> ${client.rejectionReason}</p>` : ''}
</li>`,
      )}</ul>`
}
${pager({ path: PATHS.settingsClients, page: view.page, shown: clients.length, hasMore: view.hasMore, back: 'Newer', forward: 'Older' })}`;
}
