import type { Config } from '@sched/kit/config';
import type { Context } from 'koa';
import type { AnyRoute } from '../routing/route.ts';
import type { RouteTable } from '../routing/route-table.ts';
import { renderDocsPage } from './docs-page.ts';
import { buildOpenApiDocument } from './document.ts';

/** The HTML page's path under the table's prefix (the JSON document is `/openapi.json`). */
const DOCS_PAGE = '/docs';

/**
 * Whether a request path is the docs page as the route table matches it (any case, one trailing
 * slash). It is a page, so it gets no CORS headers (app.ts); the JSON document, fetched by tools
 * from anywhere, keeps them.
 */
export function isDocsPage(prefix: string, path: string): boolean {
  const page = `${prefix}${DOCS_PAGE}`;
  const end = path.endsWith('/') ? path.length - 1 : path.length;
  return end === page.length && path.slice(0, end).toLowerCase() === page;
}

/** GET /v2/openapi.json and GET /v2/docs (public), generated once from the route declarations. */
export function mountDocs(
  table: RouteTable,
  routes: readonly AnyRoute[],
  config: Pick<Config, 'appUrl' | 'baseUrl'>,
) {
  let json: string | undefined;
  let html: string | undefined;
  const documentText = () => {
    json ??= JSON.stringify(buildOpenApiDocument(routes, config));
    return json;
  };
  table.get('/openapi.json', (ctx: Context) => {
    ctx.type = 'application/json';
    ctx.body = documentText();
  });
  table.get(DOCS_PAGE, (ctx: Context) => {
    html ??= renderDocsPage(routes, JSON.parse(documentText()));
    ctx.type = 'text/html; charset=utf-8';
    // The page has no script; inline styles only.
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    ctx.body = html;
  });
}
