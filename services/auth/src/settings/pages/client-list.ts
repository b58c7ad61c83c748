import type { PresentedClient } from '@sched/clients/present';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import { alert, formatDate, statusBadge } from './shell.ts';

export const clientPath = (clientId: string, rest = '') =>
  `${PATHS.settingsClients}/${encodeURIComponent(clientId)}${rest}`;

export function clientListPage(clients: readonly PresentedClient[], notice?: string): SafeHtml {
  return html`<div class="page-head">
<div><h1>OAuth clients</h1>
<p class="lead">Applications that sign people in with their Scheduling account.</p></div>
<a class="button primary" href="${PATHS.settingsClients}/new">New client</a>
</div>
${alert('ok', notice)}
${
  clients.length === 0
    ? html`<div class="empty"><p><strong>No OAuth clients yet.</strong></p><p class="muted">Create one to let your application use the Scheduling API on behalf of its users. A service administrator reviews every new client.</p></div>`
    : html`<ul class="client-list">${clients.map(
        (client) => html`<li>
<a class="client-row" href="${clientPath(client.id)}">
<span class="client-main"><strong>${client.name}</strong><span class="muted mono">${client.id}</span></span>
<span class="client-meta">${statusBadge(client.reviewStatus)}<span class="muted">${client.clientType === 'public' ? 'Public' : 'Confidential'} · created ${formatDate(client.createdAt)}</span></span>
</a>
${client.reviewStatus === 'REJECTED' && client.rejectionReason ? html`<p class="reason"><strong>Rejected:</strong> ${client.rejectionReason}</p>` : ''}
</li>`,
      )}</ul>`
}`;
}
