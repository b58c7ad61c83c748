import type { AnyRoute } from '../routing/route.ts';
import { accessSummary, openApiPath } from './document.ts';

/**
 * GET /v2/docs: a browsable, self-contained HTML page (no script, no CDN) built from the same
 * OpenAPI document: every operation with its authentication, scope, minimum role, PBAC
 * permission, parameters, the named schemas of its body and answer with their examples, and
 * every named schema at the end.
 */

const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** `**bold**` and `code` of the descriptions, after escaping. */
const inline = (value: string): string =>
  escapeHtml(value)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/`([^`]+)`/g, '<code>$1</code>');

type Media = { 'application/json': { schema: { $ref?: string }; example?: unknown } };
type Operation = {
  operationId: string;
  parameters: Array<{ name: string; in: string; required: boolean; description?: string; schema: unknown }>;
  requestBody?: { content: Media };
  responses: Record<string, { description: string; content?: Media }>;
};

const schemaId = (name: string) => `schema-${name}`;

/** A body or an answer: a link to its named schema and its example. */
function media(heading: string, content: Media): string {
  const { schema, example } = content['application/json'];
  const name = schema.$ref?.replace('#/components/schemas/', '');
  const link = name ? ` <a href="#${schemaId(name)}"><code>${escapeHtml(name)}</code></a>` : '';
  const shown = example === undefined ? schema : example;
  return `<h4>${heading}${link}</h4><pre>${escapeHtml(JSON.stringify(shown, null, 2))}</pre>`;
}

const CSS = `
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2937;background:#f9fafb}
header{background:#111827;color:#f9fafb;padding:1.5rem 2rem}header h1{margin:0 0 .25rem;font-size:1.5rem}
header a{color:#93c5fd}main{display:flex;gap:2rem;padding:1.5rem 2rem}
nav{flex:0 0 16rem;position:sticky;top:1rem;align-self:flex-start;max-height:95vh;overflow:auto;font-size:.9rem}
nav ul{list-style:none;padding-left:0}nav li{margin:.15rem 0}nav a{color:#1d4ed8;text-decoration:none}
section{flex:1;min-width:0}h2{border-bottom:2px solid #e5e7eb;padding-bottom:.25rem;margin-top:2rem}
details{background:#fff;border:1px solid #e5e7eb;border-radius:6px;margin:.5rem 0}
summary{cursor:pointer;padding:.6rem .8rem;display:flex;gap:.75rem;align-items:baseline;flex-wrap:wrap}
.m{font:600 .8rem ui-monospace,monospace;padding:.1rem .45rem;border-radius:4px;color:#fff;min-width:3.6rem;text-align:center}
.GET{background:#2563eb}.POST{background:#16a34a}.PATCH{background:#d97706}.PUT{background:#7c3aed}.DELETE{background:#dc2626}
.p{font-family:ui-monospace,monospace;font-weight:600}.s{color:#4b5563}.body{padding:0 1rem 1rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{text-align:left;border-bottom:1px solid #e5e7eb;padding:.3rem .5rem;vertical-align:top}
th{width:11rem;color:#374151}pre{background:#f3f4f6;padding:.6rem;border-radius:4px;overflow:auto;font-size:.8rem}
code{background:#f3f4f6;padding:0 .2rem;border-radius:3px}`;

export function renderDocsPage(
  routes: readonly AnyRoute[],
  document: {
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, unknown> };
  },
): string {
  const byTag = new Map<string, AnyRoute[]>();
  for (const route of routes) {
    const tag = route.tags[0] ?? 'Other';
    byTag.set(tag, [...(byTag.get(tag) ?? []), route]);
  }
  const tagId = (tag: string) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const nav = [...byTag.keys()]
    .map((tag) => `<li><a href="#${tagId(tag)}">${escapeHtml(tag)}</a></li>`)
    .join('');
  const sections = [...byTag.entries()]
    .map(([tag, list]) => {
      const items = list
        .map((route) => {
          const op = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()] as Operation;
          const access = accessSummary(route);
          const params = op.parameters
            .map(
              (p) =>
                `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}${p.required ? ', required' : ''}</td><td>${escapeHtml(p.description ?? '')}</td><td><code>${escapeHtml(JSON.stringify(p.schema))}</code></td></tr>`,
            )
            .join('');
          const body = op.requestBody ? media('Request body (JSON), example:', op.requestBody.content) : '';
          const ok = Object.entries(op.responses)[0]!;
          const response = ok[1].content
            ? media(`Response ${ok[0]}: ${escapeHtml(ok[1].description)}, example:`, ok[1].content)
            : `<h4>Response ${ok[0]}: ${escapeHtml(ok[1].description)}</h4>`;
          return `<details id="${escapeHtml(op.operationId)}"><summary><span class="m ${route.method}">${route.method}</span><span class="p">/v2${escapeHtml(openApiPath(route.path))}</span><span class="s">${escapeHtml(route.summary)}</span>${route.deprecated ? '<strong>deprecated</strong>' : ''}</summary>
<div class="body">${route.description ? `<p>${inline(route.description)}</p>` : ''}
<table><tr><th>Authentication</th><td>${inline(access.auth)}</td></tr><tr><th>OAuth scope</th><td>${escapeHtml(access.scope)}</td></tr><tr><th>Minimum role</th><td>${escapeHtml(access.role)}</td></tr><tr><th>PBAC permission</th><td>${escapeHtml(access.permission)}</td></tr></table>
${params ? `<h4>Parameters</h4><table>${params}</table>` : ''}${body}${response}</div></details>`;
        })
        .join('\n');
      return `<h2 id="${tagId(tag)}">${escapeHtml(tag)}</h2>\n${items}`;
    })
    .join('\n');
  const schemas = Object.entries(document.components.schemas)
    .map(
      ([name, schema]) =>
        `<details id="${schemaId(name)}"><summary><span class="p">${escapeHtml(name)}</span></summary><div class="body"><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></div></details>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Scheduling API v2</title><style>${CSS}</style></head>
<body><header><h1>Scheduling API v2</h1><div>Machine-readable: <a href="/v2/openapi.json">/v2/openapi.json</a> (OpenAPI 3.1).
Errors use <code>{"status":"error","timestamp","path","error":{"code","message","details?"}}</code>.</div></header>
<main><nav><strong>Sections</strong><ul>${nav}<li><a href="#schemas">Schemas</a></li></ul></nav><section>${sections}
<h2 id="schemas">Schemas</h2>\n${schemas}</section></main></body></html>`;
}
