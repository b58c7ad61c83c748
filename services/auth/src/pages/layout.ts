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

export function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>${title} · Scheduling</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<main class="card">
<div class="brand"><span class="brand-mark" aria-hidden="true"></span>Scheduling</div>
${body}
</main>
<footer>Secured by Scheduling</footer>
</body>
</html>
`.value;
}

/** Sends a server-rendered page: never cached, never framed, no referrer. */
export function sendPage(ctx: Context, status: number, title: string, body: SafeHtml): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
  ctx.set('Content-Security-Policy', PAGE_CSP);
  ctx.body = layout(title, body);
}
