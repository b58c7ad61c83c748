import type { AuditEvent } from '@sched/db/queries/audit-log';
import { html, type SafeHtml } from '../pages/html.ts';
import { PATHS } from '../paths.ts';
import { adminNav } from './nav.ts';

/** The console's audit log page: filters, newest first, cursor paging. */

export interface AuditFilters {
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
}

export interface AuditView {
  events: readonly AuditEvent[];
  filters: AuditFilters;
  /** Query string of the next (older) page, when there is one. */
  next: string | null;
  /** Whether this is a later page (a link back to the newest). */
  later: boolean;
}

const actorLabel = (event: AuditEvent) => {
  const { actor } = event;
  if (actor.kind === 'system') return 'system';
  const user = actor.userId === null ? '' : `user #${actor.userId}`;
  if (actor.kind === 'api_key') return `${user} (API key #${actor.apiKeyId ?? '?'})`;
  if (actor.kind === 'oauth_client') return `${user || 'client'} (via ${actor.clientId ?? '?'})`;
  return user;
};

const jsonOf = (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value));

export function auditPage(view: AuditView): SafeHtml {
  const field = (name: keyof AuditFilters, label: string) =>
    html`<div class="field"><label for="audit-${name}">${label}</label><input type="text" id="audit-${name}" name="${name}" value="${view.filters[name]}" maxlength="200"></div>`;
  return html`${adminNav('audit')}
<div class="page-head"><div><h1>Audit log</h1>
<p class="lead">Every recorded change, newest first.</p></div></div>
<form method="get" action="${PATHS.adminAudit}" class="row audit-filters">
${field('actor', 'Actor user id')}
${field('action', 'Action')}
${field('targetType', 'Target type')}
${field('targetId', 'Target id')}
<div class="form-actions"><button type="submit" class="secondary">Filter</button></div>
</form>
${
  view.events.length === 0
    ? html`<div class="empty"><p><strong>No events.</strong></p></div>`
    : html`<table class="table audit-table"><thead><tr><th scope="col">Time (UTC)</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col">Details</th></tr></thead><tbody>
${view.events.map(
  (
    event,
  ) => html`<tr><td class="mono nowrap">${event.createdAt.toISOString().replace('T', ' ').slice(0, 19)}</td>
<td class="mono nowrap">${event.action}</td><td>${actorLabel(event)}</td>
<td class="mono">${event.targetType}${event.targetId === null ? '' : ` ${event.targetId}`}</td>
<td class="mono audit-details">${[jsonOf(event.details) === '{}' ? '' : jsonOf(event.details), event.before != null ? ` before ${jsonOf(event.before)}` : '', event.after != null ? ` after ${jsonOf(event.after)}` : '']}</td></tr>`,
)}
</tbody></table>`
}
<nav class="pager" aria-label="Pages">
${view.later ? html`<a class="button secondary small" href="${PATHS.adminAudit}${filterQuery(view.filters)}">Newest</a>` : html`<span></span>`}
<span></span>
${view.next ? html`<a class="button secondary small" rel="next" href="${PATHS.adminAudit}${view.next}">Older</a>` : html`<span></span>`}
</nav>`;
}

/** `?actor=..&action=..` of the filters that are set. */
export function filterQuery(filters: AuditFilters, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value !== '') query.set(key, value);
  for (const [key, value] of Object.entries(extra)) query.set(key, value);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
