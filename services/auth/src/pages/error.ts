import { html, type SafeHtml } from './html.ts';

/** The body of an error page: what went wrong and what the user can do about it. */
export function errorPage(title: string, message: string, hint?: string): SafeHtml {
  return html`<h1>${title}</h1>
<div class="alert alert-error" role="alert">${message}</div>
${hint ? html`<p class="fineprint">${hint}</p>` : ''}`;
}

/** A page that just says something happened (e-mail verified, ...). */
export function messagePage(title: string, message: string): SafeHtml {
  return html`<h1>${title}</h1>
<p class="lead">${message}</p>`;
}
