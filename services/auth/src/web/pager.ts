import { html, type SafeHtml } from '../pages/html.ts';
import { type Page, pageQueryString } from './paging.ts';

export interface PagerView {
  /** The list's path, without a query. */
  path: string;
  page: Page;
  shown: number;
  hasMore: boolean;
  /** Link texts: towards the start of the list, and further on. */
  back: string;
  forward: string;
}

/** "Newer / Older" style links; nothing at all when everything fits on the first page. */
export function pager(view: PagerView): SafeHtml | '' {
  const { page, path } = view;
  if (page.skip === 0 && !view.hasMore) return '';
  const to = (skip: number) => `${path}${pageQueryString({ skip, take: page.take })}`;
  const range =
    view.shown > 0 ? `${page.skip + 1}–${page.skip + view.shown}` : `nothing from ${page.skip + 1} on`;
  return html`<nav class="pager" aria-label="Pages">
${page.skip > 0 ? html`<a class="button secondary small" rel="prev" href="${to(Math.max(0, page.skip - page.take))}">${view.back}</a>` : html`<span></span>`}
<span class="muted">Showing ${range}</span>
${view.hasMore ? html`<a class="button secondary small" rel="next" href="${to(page.skip + page.take)}">${view.forward}</a>` : html`<span></span>`}
</nav>`;
}
