import type { Context } from 'koa';

/**
 * The embed pages' one script, served from our origin (`script-src 'self'`, no inline script). It
 * reads what the server put on <body> (data-parent-origin, data-mode, data-message) and talks to
 * the embedding page by postMessage with that exact target origin (onboarding-embed README,
 * "Protocol" 2): onboarding:ready on every page, the page's own message (result, error,
 * needs-popup), and onboarding:close for Cancel and for Escape (the embedding page cannot see keys
 * typed in the frame). Without a checked parent origin (data-parent-origin absent) it posts nothing
 * at all. It also preselects the browser's time zone on the profile step and stops double
 * submissions.
 */
export const EMBED_SCRIPT = `'use strict';
(function () {
  var data = document.body.dataset;
  var origin = data.parentOrigin;
  var popup = data.mode === 'popup';
  var target = popup ? window.opener : window.parent !== window ? window.parent : null;

  function post(message) {
    if (!origin || !target) return;
    try {
      target.postMessage(message, origin);
    } catch (error) {
      // The embedding page went away: nothing to tell.
    }
  }
  function finish(message) {
    post(message);
    if (popup) window.close();
  }

  post({ type: 'onboarding:ready' });
  if (data.message) {
    var message = JSON.parse(data.message);
    if (message.type.indexOf('authorization:') === 0) finish(message);
    else post(message);
  }

  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && !event.defaultPrevented) finish({ type: 'onboarding:close' });
  });
  document.querySelectorAll('[data-embed-close]').forEach(function (element) {
    element.addEventListener('click', function (event) {
      event.preventDefault();
      finish({ type: 'onboarding:close' });
    });
  });

  var zone = document.querySelector('select[data-detect-time-zone]');
  if (zone) {
    try {
      var detected = Intl.DateTimeFormat().resolvedOptions().timeZone;
      for (var i = 0; i < zone.options.length; i++) {
        if (zone.options[i].value === detected) zone.value = detected;
      }
    } catch (error) {
      // No Intl time zone support: the server's default stays selected.
    }
  }

  document.querySelectorAll('form').forEach(function (form) {
    var sent = false;
    form.addEventListener('submit', function (event) {
      if (sent) event.preventDefault();
      sent = true;
    });
  });
})();
`;

export function embedScript(ctx: Context): void {
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.body = EMBED_SCRIPT;
}
