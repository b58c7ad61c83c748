import type { Config } from '@sched/kit/config';
import type { Context } from 'koa';
import type { AnyRoute } from '../routing/route.ts';
import type { RouteTable } from '../routing/route-table.ts';
import { renderDocsPage } from './docs-page.ts';
import { buildOpenApiDocument } from './document.ts';

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
  table.get('/docs', (ctx: Context) => {
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
