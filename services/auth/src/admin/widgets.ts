import { CSRF_FIELD } from '../http/csrf.ts';
import { html, type SafeHtml } from '../pages/html.ts';
import { type Page, pageQueryString } from '../web/paging.ts';

/** Pieces several console pages use. */

/** Previous / next links of a paged list that keep its filters. */
export function filteredPager(
  path: string,
  page: Page,
  shown: number,
  hasMore: boolean,
  filters: Record<string, string>,
) {
  if (page.skip === 0 && !hasMore) return '';
  const to = (skip: number) => `${path}${pageQueryString({ skip, take: page.take }, filters)}`;
  return html`<nav class="pager" aria-label="Pages">
${page.skip > 0 ? html`<a class="button secondary small" rel="prev" href="${to(Math.max(0, page.skip - page.take))}">Previous</a>` : html`<span></span>`}
<span class="muted">Showing ${shown > 0 ? `${page.skip + 1}–${page.skip + shown}` : `nothing from ${page.skip + 1} on`}</span>
${hasMore ? html`<a class="button secondary small" rel="next" href="${to(page.skip + page.take)}">Next</a>` : html`<span></span>`}
</nav>`;
}

/** A one-button POST form with the CSRF token. */
export const actionForm = (
  path: string,
  csrf: string,
  label: string,
  kind: 'primary' | 'secondary' | 'danger' = 'secondary',
) =>
  html`<form method="post" action="${path}"><input type="hidden" name="${CSRF_FIELD}" value="${csrf}"><button type="submit" class="${kind}">${label}</button></form>`;

export const yesNo = (value: boolean) => (value ? 'Yes' : 'No');

/** A labelled text input of a console form, with its error (from a 400 or 409 re-render) beside it. */
export function inputField(field: {
  id: string;
  name: string;
  label: string;
  value: string;
  max: number;
  type?: 'text' | 'email';
  error?: string | undefined;
  hint?: string | undefined;
}): SafeHtml {
  const errorId = `${field.id}-error`;
  return html`<div class="field"><label for="${field.id}">${field.label}</label>
<input type="${field.type ?? 'text'}" id="${field.id}" name="${field.name}" value="${field.value}" maxlength="${field.max}" required${field.error ? html` aria-invalid="true" aria-describedby="${errorId}"` : ''}>
${field.error ? html`<span class="field-error" id="${errorId}">${field.error}</span>` : ''}
${field.hint ? html`<span class="hint">${field.hint}</span>` : ''}</div>`;
}
