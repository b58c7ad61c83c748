import { html, type SafeHtml } from '../pages/html.ts';
import { PATHS } from '../paths.ts';

/** The console's own navigation and the paths of its pages. */

export type AdminSection = 'users' | 'organizations' | 'clients' | 'review' | 'resource-servers' | 'audit';

/** Above every admin page. */
export function adminNav(current: AdminSection): SafeHtml {
  const link = (section: AdminSection, href: string, label: string) =>
    html`<a href="${href}"${current === section ? html` class="current" aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs admin-nav" aria-label="Admin console">
${link('users', PATHS.adminUsers, 'Users')}
${link('organizations', PATHS.adminOrganizations, 'Organizations')}
${link('clients', PATHS.adminAllClients, 'All clients')}
${link('review', PATHS.adminClients, 'Client review')}
${link('resource-servers', PATHS.adminResourceServers, 'Resource servers')}
${link('audit', PATHS.adminAudit, 'Audit log')}
</nav>`;
}

const withAction = (base: string, action: string) => (action ? `${base}/${action}` : base);

export const adminUserPath = (userId: number, action = '') =>
  withAction(`${PATHS.adminUsers}/${userId}`, action);
export const adminClientPath = (clientId: string, action = '') =>
  withAction(`${PATHS.adminAllClients}/${encodeURIComponent(clientId)}`, action);
export const adminOrganizationPath = (orgId: number, action = '') =>
  withAction(`${PATHS.adminOrganizations}/${orgId}`, action);
export const adminResourceServerPath = (id: string, action = '') =>
  withAction(`${PATHS.adminResourceServers}/${encodeURIComponent(id)}`, action);

/** The audit log filtered to one target. */
export const auditOf = (targetType: string, targetId: string | number) =>
  `${PATHS.adminAudit}?targetType=${encodeURIComponent(targetType)}&targetId=${encodeURIComponent(String(targetId))}`;
