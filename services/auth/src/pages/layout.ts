import type { Context } from 'koa';
import { html, type SafeHtml } from './html.ts';
import { STYLESHEET_PATH } from './styles.ts';

/**
 * Pages load nothing but our stylesheet and the client's logo; no scripts at all. `form-action` is
 * left out on purpose: after Allow or Deny the form's response redirects to the client, and
 * browsers apply form-action to that redirect too.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export type Theme = 'light' | 'dark';

/**
 * What a page may change in the layout (all optional: without options a page is exactly the
 * site's ordinary page). The onboarding embed uses them; see src/embed/.
 */
export interface PageOptions {
  /** Forces the light or dark theme (and the matching CSS color-scheme); default: the system's. */
  theme?: Theme;
  /** Origins allowed to frame the page (CSP frame-ancestors); default none. */
  frameAncestors?: readonly string[];
  /** One same-origin script (allowed by `script-src 'self'`); default none. */
  script?: string;
  /** `data-*` attributes on <body> (read by the script): name without the prefix -> value. */
  data?: Readonly<Record<string, string>>;
  /** Extra class on <body>. */
  bodyClass?: string;
}

/** The page's CSP: PAGE_CSP, plus the script and the framing origins when options ask for them. */
export function pageCsp(options: PageOptions = {}): string {
  if (!options.script && !options.frameAncestors) return PAGE_CSP;
  const ancestors =
    options.frameAncestors && options.frameAncestors.length > 0 ? options.frameAncestors.join(' ') : "'none'";
  return [
    "default-src 'none'",
    ...(options.script ? ["script-src 'self'"] : []),
    "style-src 'self'",
    "img-src 'self' https: data:",
    "base-uri 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}

/** The calendar glyph of the brand mark (the embed component's dialog header shows the same). */
const BRAND_GLYPH = html`<svg width="14" height="14" viewBox="0 0 24 24" fill="none" focusable="false"><rect x="3.5" y="5" width="17" height="15.5" rx="3" stroke="currentColor" stroke-width="2.2"/><path d="M3.5 10h17M8 3v4M16 3v4" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/></svg>`;

const dataAttributes = (data: PageOptions['data']): SafeHtml =>
  html`${Object.entries(data ?? {}).map(([name, value]) => html` data-${name}="${value}"`)}`;

export function layout(title: string, body: SafeHtml, options: PageOptions = {}): string {
  const theme = options.theme;
  return html`<!doctype html>
<html lang="en"${theme ? html` data-theme="${theme}"` : ''}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${theme ?? 'light dark'}">
<meta name="referrer" content="no-referrer">
<title>${title} · Scheduling</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${options.script ? html`<script src="${options.script}" defer></script>` : ''}
</head>
<body${options.bodyClass ? html` class="${options.bodyClass}"` : ''}${dataAttributes(options.data)}>
<main class="card">
<div class="brand"><span class="brand-mark" aria-hidden="true">${BRAND_GLYPH}</span>Scheduling</div>
${body}
</main>
<footer>Secured by Scheduling</footer>
</body>
</html>
`.value;
}

/** Sends a server-rendered page: never cached, no referrer, framed only where `options` allow. */
export function sendPage(
  ctx: Context,
  status: number,
  title: string,
  body: SafeHtml,
  options: PageOptions = {},
): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.set('Content-Security-Policy', pageCsp(options));
  ctx.body = layout(title, body, options);
}
