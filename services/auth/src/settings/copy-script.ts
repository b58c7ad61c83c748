import type { Context } from 'koa';

/**
 * The settings pages' only script (same origin, allowed by `script-src 'self'` on the page that
 * shows a new secret): shows the Copy button and copies the secret. Without it the secret is still
 * in a read-only field to select by hand.
 */
const SCRIPT = `(() => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const field = document.getElementById(button.getAttribute('data-copy'));
    if (!field || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        button.textContent = 'Copied';
      } catch {
        field.select();
        button.textContent = 'Press Ctrl+C';
      }
      setTimeout(() => { button.textContent = 'Copy'; }, 2000);
    });
  }
})();
`;

export function copyScript(ctx: Context): void {
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.body = SCRIPT;
}
