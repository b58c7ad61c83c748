/**
 * Self-contained styles, rendered in a <style> element next to what they style. Every selector is
 * scoped under a `sched-oe-` class and doubled (`.x.x`) to outrank a site's plain element rules
 * such as `button { ... }`. No external CSS, no fonts to download.
 */

const FONT =
  "ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif";

export const TRIGGER_CSS = `
.sched-oe-trigger.sched-oe-trigger {
  all: unset;
  box-sizing: border-box;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: 10px;
  min-height: 44px;
  padding: 0 18px 0 12px;
  border-radius: 10px;
  border: 1px solid transparent;
  font-family: ${FONT};
  font-size: 15px;
  font-weight: 600;
  line-height: 1.2;
  letter-spacing: -0.005em;
  white-space: nowrap;
  text-decoration: none;
  cursor: pointer;
  user-select: none;
  transition: background-color 120ms ease, box-shadow 120ms ease, transform 60ms ease;
}
.sched-oe-trigger.sched-oe-theme-light {
  background: #111827;
  color: #ffffff;
  box-shadow: 0 1px 2px rgba(15, 23, 42, 0.18), 0 1px 1px rgba(15, 23, 42, 0.08);
}
.sched-oe-trigger.sched-oe-theme-light:hover { background: #1f2937; }
.sched-oe-trigger.sched-oe-theme-dark {
  background: #ffffff;
  color: #0f172a;
  border-color: #e2e8f0;
  box-shadow: 0 1px 2px rgba(0, 0, 0, 0.4);
}
.sched-oe-trigger.sched-oe-theme-dark:hover { background: #f1f5f9; }
.sched-oe-trigger.sched-oe-trigger:active { transform: translateY(1px); }
.sched-oe-trigger.sched-oe-trigger:focus-visible { outline: 3px solid #6366f1; outline-offset: 2px; }
.sched-oe-logo.sched-oe-logo {
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 24px;
  height: 24px;
  border-radius: 6px;
  background: #4f46e5;
  color: #ffffff;
  flex: none;
}
`;

export const DIALOG_CSS = `
.sched-oe-overlay.sched-oe-overlay {
  position: fixed;
  inset: 0;
  z-index: 2147483000;
  display: flex;
  align-items: center;
  justify-content: center;
  padding: 16px;
  box-sizing: border-box;
  background: rgba(15, 23, 42, 0.55);
  font-family: ${FONT};
  animation: sched-oe-fade 140ms ease-out;
}
.sched-oe-overlay.sched-oe-theme-dark { background: rgba(2, 6, 23, 0.72); }
.sched-oe-dialog.sched-oe-dialog {
  box-sizing: border-box;
  display: flex;
  flex-direction: column;
  width: min(480px, 100%);
  height: min(720px, 100%);
  border-radius: 14px;
  overflow: hidden;
  outline: none;
  text-align: left;
  animation: sched-oe-rise 160ms ease-out;
}
.sched-oe-dialog.sched-oe-theme-light {
  color-scheme: light;
  background: #ffffff;
  color: #0f172a;
  border: 1px solid #e2e8f0;
  box-shadow: 0 24px 64px rgba(15, 23, 42, 0.28), 0 2px 6px rgba(15, 23, 42, 0.08);
}
.sched-oe-dialog.sched-oe-theme-dark {
  color-scheme: dark;
  background: #0f172a;
  color: #e2e8f0;
  border: 1px solid #1e293b;
  box-shadow: 0 24px 64px rgba(0, 0, 0, 0.6);
}
.sched-oe-header.sched-oe-header {
  display: flex;
  align-items: center;
  gap: 10px;
  padding: 12px 12px 12px 16px;
  border-bottom: 1px solid;
  flex: none;
}
.sched-oe-theme-light .sched-oe-header.sched-oe-header { border-color: #e2e8f0; }
.sched-oe-theme-dark .sched-oe-header.sched-oe-header { border-color: #1e293b; }
.sched-oe-title.sched-oe-title {
  margin: 0;
  flex: 1;
  font-family: ${FONT};
  font-size: 15px;
  font-weight: 600;
  line-height: 1.3;
  color: inherit;
}
.sched-oe-close.sched-oe-close {
  all: unset;
  box-sizing: border-box;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  width: 32px;
  height: 32px;
  border-radius: 8px;
  cursor: pointer;
  color: inherit;
  opacity: 0.75;
}
.sched-oe-close.sched-oe-close:hover { opacity: 1; }
.sched-oe-theme-light .sched-oe-close.sched-oe-close:hover { background: #f1f5f9; }
.sched-oe-theme-dark .sched-oe-close.sched-oe-close:hover { background: #1e293b; }
.sched-oe-close.sched-oe-close:focus-visible { outline: 3px solid #6366f1; outline-offset: 1px; opacity: 1; }
.sched-oe-body.sched-oe-body { position: relative; flex: 1; min-height: 0; }
.sched-oe-frame.sched-oe-frame {
  display: block;
  width: 100%;
  height: 100%;
  border: 0;
  background: transparent;
}
.sched-oe-frame.sched-oe-loading { visibility: hidden; }
.sched-oe-spinner-wrap.sched-oe-spinner-wrap {
  position: absolute;
  inset: 0;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  gap: 14px;
  font-size: 14px;
  opacity: 0.85;
}
.sched-oe-spinner.sched-oe-spinner {
  width: 28px;
  height: 28px;
  border-radius: 50%;
  border: 3px solid currentColor;
  border-right-color: transparent;
  opacity: 0.7;
  animation: sched-oe-spin 0.8s linear infinite;
}
.sched-oe-panel.sched-oe-panel {
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  gap: 16px;
  height: 100%;
  padding: 32px;
  box-sizing: border-box;
  text-align: center;
  font-size: 15px;
  line-height: 1.5;
}
.sched-oe-panel.sched-oe-panel p { margin: 0; max-width: 34ch; }
.sched-oe-button.sched-oe-button {
  all: unset;
  box-sizing: border-box;
  display: inline-flex;
  align-items: center;
  min-height: 40px;
  padding: 0 16px;
  border-radius: 10px;
  font-family: ${FONT};
  font-size: 14px;
  font-weight: 600;
  cursor: pointer;
  background: #4f46e5;
  color: #ffffff;
}
.sched-oe-button.sched-oe-button:hover { background: #4338ca; }
.sched-oe-button.sched-oe-button:focus-visible { outline: 3px solid #a5b4fc; outline-offset: 2px; }
.sched-oe-note.sched-oe-note { font-size: 13px; opacity: 0.75; }
.sched-oe-visually-hidden.sched-oe-visually-hidden {
  position: absolute;
  width: 1px;
  height: 1px;
  margin: -1px;
  padding: 0;
  overflow: hidden;
  clip: rect(0 0 0 0);
  white-space: nowrap;
  border: 0;
}
.sched-oe-guard.sched-oe-guard { position: fixed; width: 1px; height: 1px; opacity: 0; overflow: hidden; }
@media (max-width: 520px) {
  .sched-oe-overlay.sched-oe-overlay { padding: 0; }
  .sched-oe-dialog.sched-oe-dialog { width: 100%; height: 100%; border-radius: 0; border: 0; }
}
@keyframes sched-oe-spin { to { transform: rotate(360deg); } }
@keyframes sched-oe-fade { from { opacity: 0; } }
@keyframes sched-oe-rise { from { opacity: 0; transform: translateY(8px) scale(0.99); } }
@media (prefers-reduced-motion: reduce) {
  .sched-oe-overlay.sched-oe-overlay, .sched-oe-dialog.sched-oe-dialog { animation: none; }
  .sched-oe-spinner.sched-oe-spinner { animation-duration: 2.4s; }
}
`;
