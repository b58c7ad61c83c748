/**
 * The stylesheet of every page, served at STYLESHEET_PATH (no external assets, no inline styles,
 * so the pages' CSP can stay `style-src 'self'`). Light and dark follow the system setting, unless
 * the page forces one with `<html data-theme="light|dark">` (the onboarding embed's `theme`).
 */
export const STYLESHEET_PATH = '/auth/assets/app.css';

/** The dark palette, used by the system setting and by data-theme="dark". */
const DARK = `
  --bg: #0f1115;
  --card: #171a21;
  --text: #eef0f3;
  --muted: #9aa3b2;
  --border: #2c313c;
  --input: #0f1115;
  --brand: #f2f3f5;
  --brand-text: #111318;
  --accent: #7aa7ff;
  --danger-bg: #3a1717;
  --danger-text: #ffb4b4;
  --warn-bg: #3a2c10;
  --warn-text: #ffd58a;
  --ok: #4ade80;
  --focus: #7aa7ff;
  --shadow: 0 1px 2px rgba(0, 0, 0, .4), 0 8px 24px rgba(0, 0, 0, .35);
`;

export const STYLESHEET = `
:root {
  color-scheme: light dark;
  --bg: #f4f5f7;
  --card: #ffffff;
  --text: #111827;
  --muted: #5b6473;
  --border: #d9dde3;
  --input: #ffffff;
  --brand: #292929;
  --brand-text: #ffffff;
  --accent: #2563eb;
  --danger-bg: #fdecec;
  --danger-text: #9b1c1c;
  --warn-bg: #fff6e0;
  --warn-text: #7a4b00;
  --ok: #15803d;
  --focus: #2563eb;
  --shadow: 0 1px 2px rgba(16, 24, 40, .06), 0 8px 24px rgba(16, 24, 40, .08);
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme=light]) {${DARK}  }
}
:root[data-theme=light] { color-scheme: light; }
:root[data-theme=dark] {
  color-scheme: dark;${DARK}}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0;
  min-height: 100vh;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  padding: 32px 16px;
  background: var(--bg);
  color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
.card {
  width: 100%;
  max-width: 420px;
  background: var(--card);
  border: 1px solid var(--border);
  border-radius: 14px;
  box-shadow: var(--shadow);
  padding: 32px;
}
.brand { display: flex; align-items: center; gap: 8px; font-weight: 600; margin-bottom: 24px; color: var(--muted); }
.brand-mark { width: 22px; height: 22px; border-radius: 6px; background: var(--brand); color: var(--brand-text); display: inline-flex; align-items: center; justify-content: center; }
h1 { font-size: 22px; line-height: 1.3; margin: 0 0 6px; letter-spacing: -.01em; }
.lead { color: var(--muted); margin: 0 0 24px; }
.lead strong { color: var(--text); font-weight: 600; }
form { margin: 0; }
.field { margin-bottom: 16px; }
label { display: block; font-weight: 600; font-size: 14px; margin-bottom: 6px; }
input[type=email], input[type=password], input[type=text], input[type=search], input[type=url], select {
  width: 100%;
  height: 42px;
  padding: 0 12px;
  border: 1px solid var(--border);
  border-radius: 8px;
  background: var(--input);
  color: var(--text);
  font: inherit;
}
input:focus-visible, button:focus-visible, a:focus-visible, select:focus-visible {
  outline: 2px solid var(--focus);
  outline-offset: 2px;
}
.hint { display: block; color: var(--muted); font-size: 13px; margin-top: 4px; }
.field-error { display: block; color: var(--danger-text); font-size: 13px; margin-top: 4px; font-weight: 600; }
input[aria-invalid=true] { border-color: var(--danger-text); }
button {
  font: inherit;
  font-weight: 600;
  height: 42px;
  padding: 0 18px;
  border-radius: 8px;
  cursor: pointer;
  border: 1px solid transparent;
}
.primary { background: var(--brand); color: var(--brand-text); }
.secondary { background: transparent; color: var(--text); border-color: var(--border); }
.primary:hover { opacity: .9; }
.secondary:hover { background: var(--bg); }
.block { width: 100%; }
.actions { display: flex; gap: 12px; margin-top: 24px; }
.actions button { flex: 1; }
.actions .secondary { order: -1; }
.alt { text-align: center; color: var(--muted); margin: 20px 0 0; font-size: 14px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.alert { border-radius: 8px; padding: 10px 12px; margin: 0 0 16px; font-size: 14px; }
.alert-error { background: var(--danger-bg); color: var(--danger-text); }
.alert-warn { background: var(--warn-bg); color: var(--warn-text); }
.client { display: flex; align-items: center; gap: 14px; margin-bottom: 20px; }
.client-logo {
  width: 52px; height: 52px; border-radius: 12px; object-fit: cover;
  border: 1px solid var(--border); background: var(--bg); flex: none;
}
.client-initial {
  width: 52px; height: 52px; border-radius: 12px; flex: none;
  display: flex; align-items: center; justify-content: center;
  background: var(--brand); color: var(--brand-text); font-weight: 700; font-size: 22px;
}
.client-site { font-size: 14px; word-break: break-all; }
.account { color: var(--muted); font-size: 14px; margin: 0 0 16px; }
.scopes { list-style: none; padding: 0; margin: 0; border: 1px solid var(--border); border-radius: 10px; }
.scopes li { display: flex; gap: 10px; padding: 10px 14px; border-top: 1px solid var(--border); }
.scopes li:first-child { border-top: none; }
.scopes li::before { content: "\\2713"; color: var(--ok); font-weight: 700; }
.scopes + .alert { margin-top: 16px; }
.scope-code { display: block; color: var(--muted); font-size: 12px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.fineprint { color: var(--muted); font-size: 13px; margin: 16px 0 0; }
footer { color: var(--muted); font-size: 12px; margin-top: 20px; }
.row { display: flex; gap: 12px; }
.row > .field { flex: 1; min-width: 0; }
.link-button {
  background: none; border: none; height: auto; padding: 0; color: var(--muted);
  font-weight: 500; text-decoration: underline; text-underline-offset: 2px;
}
.link-button:hover { color: var(--text); }
.steps { display: flex; gap: 6px; list-style: none; padding: 0; margin: 0 0 20px; }
.steps li { flex: 1; height: 4px; border-radius: 2px; background: var(--border); }
.steps li.done, .steps li.current { background: var(--brand); }
.step-label { color: var(--muted); font-size: 13px; font-weight: 600; margin: 0 0 4px; letter-spacing: .02em; }
.step-label + .client { margin-top: 14px; }
.providers { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; margin: 0 0 8px; border: none; padding: 0; }
.providers legend { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.provider { position: relative; }
.provider input { position: absolute; opacity: 0; inset: 0; margin: 0; cursor: pointer; }
.provider label {
  display: flex; align-items: center; gap: 10px; margin: 0; height: 56px; padding: 0 12px;
  border: 1px solid var(--border); border-radius: 10px; background: var(--input); cursor: pointer;
  font-weight: 600;
}
.provider input:checked + label { border-color: var(--brand); box-shadow: 0 0 0 1px var(--brand); }
.provider input:focus-visible + label { outline: 2px solid var(--focus); outline-offset: 2px; }
.provider-mark {
  width: 28px; height: 28px; border-radius: 7px; flex: none; display: inline-flex; align-items: center;
  justify-content: center; font-size: 13px; font-weight: 700; color: #fff;
}
.provider-google { background: #1a73e8; }
.provider-outlook { background: #0f6cbd; }
.provider-apple { background: #1d1d1f; }
.provider-caldav { background: #6b7280; }
:root[data-theme=dark] .provider-apple { background: #3a3a3c; }
.cancel-row { text-align: center; margin: 14px 0 0; }
body.embed { padding: 0; justify-content: flex-start; background: var(--card); min-height: 100vh; }
body.embed .card { max-width: 440px; border: none; box-shadow: none; border-radius: 0; padding: 28px 28px 8px; }
body.embed .brand { margin-bottom: 18px; }
body.embed footer { margin: 8px 0 20px; }
.done-mark {
  width: 44px; height: 44px; border-radius: 50%; display: flex; align-items: center; justify-content: center;
  background: var(--brand); color: var(--brand-text); font-size: 22px; font-weight: 700; margin: 0 0 16px;
}
@media (max-width: 480px) {
  body { padding: 0; justify-content: flex-start; }
  .card { border-radius: 0; border-left: none; border-right: none; box-shadow: none; padding: 24px 20px; }
}
/* Settings and admin pages (src/settings/, src/admin/): a wider card with sections. */
body.settings { justify-content: flex-start; }
body.settings .card { max-width: 880px; padding: 28px 36px 36px; }
body.settings .brand { margin-bottom: 16px; }
.settings-head {
  display: flex; align-items: center; justify-content: space-between; gap: 16px;
  border-bottom: 1px solid var(--border); margin: 0 0 28px; flex-wrap: wrap;
}
.tabs { display: flex; gap: 4px; flex-wrap: wrap; }
.tz-search { margin-bottom: 8px; }
.app-logo { width: 32px; height: 32px; border-radius: 6px; object-fit: cover; vertical-align: middle; }
.scope-list { margin: 4px 0 0; padding-left: 18px; font-size: 13px; }
.tabs a {
  padding: 10px 12px; color: var(--muted); font-weight: 600; font-size: 14px;
  border-bottom: 2px solid transparent; margin-bottom: -1px;
}
.tabs a:hover { color: var(--text); text-decoration: none; }
.tabs a.current { color: var(--text); border-bottom-color: var(--brand); }
.admin-nav { border-bottom: 1px solid var(--border); margin: -12px 0 20px; }
.audit-details { font-size: 12px; word-break: break-word; }
.audit-table td.nowrap { white-space: nowrap; word-break: normal; }
.admin-actions { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 12px 0 16px; }
.admin-actions form { margin: 0; }
.kvs + h2 { margin-top: 24px; }
.signout { display: flex; align-items: center; gap: 10px; font-size: 14px; padding-bottom: 6px; }
.signout .who { color: var(--muted); }
.page-head { display: flex; justify-content: space-between; align-items: flex-start; gap: 16px; margin-bottom: 8px; }
.page-head .lead { margin-bottom: 20px; }
.title-row { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; margin-bottom: 16px; }
.title-row h1 { margin: 0; }
.head-actions { display: flex; gap: 8px; }
.crumbs { margin: 0 0 8px; font-size: 14px; }
.crumbs a::before { content: "\\2190  "; }
h2 { font-size: 17px; margin: 0 0 8px; }
section { margin-top: 28px; }
.section-head { display: flex; justify-content: space-between; align-items: center; gap: 12px; }
.muted { color: var(--muted); }
.small-text { font-size: 13px; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; word-break: break-all; }
a.button {
  display: inline-flex; align-items: center; justify-content: center; height: 40px; padding: 0 16px;
  border-radius: 8px; font-weight: 600; border: 1px solid transparent; white-space: nowrap;
}
a.button:hover { text-decoration: none; opacity: .9; }
a.button.primary { color: var(--brand-text); }
a.button.secondary { color: var(--text); border-color: var(--border); }
.danger, a.button.danger { background: var(--danger-bg); color: var(--danger-text); border-color: transparent; }
button.small, a.button.small { height: 34px; padding: 0 12px; font-size: 14px; }
.danger-link { background: none; border: none; height: auto; padding: 0; color: var(--danger-text); font-weight: 600; }
.danger-link:hover { text-decoration: underline; }
.alert-ok { background: color-mix(in srgb, var(--ok) 14%, transparent); color: var(--text); border-left: 3px solid var(--ok); }
.block-text { display: block; margin-top: 4px; }
.badge {
  display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 12px; font-weight: 700;
  letter-spacing: .02em; white-space: nowrap;
}
.badge-pending { background: var(--warn-bg); color: var(--warn-text); }
.badge-approved { background: color-mix(in srgb, var(--ok) 16%, transparent); color: var(--ok); }
.badge-rejected { background: var(--danger-bg); color: var(--danger-text); }
.kvs { margin: 0; border: 1px solid var(--border); border-radius: 10px; }
.kv { display: grid; grid-template-columns: 170px 1fr; gap: 16px; padding: 12px 16px; border-top: 1px solid var(--border); }
.kv:first-child { border-top: none; }
.kv dt { color: var(--muted); font-size: 14px; font-weight: 600; }
.kv dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.kvs.compact .kv { padding: 8px 14px; grid-template-columns: 130px 1fr; }
ul.plain { list-style: none; margin: 0; padding: 0; }
ul.plain li + li { margin-top: 4px; }
.scope-code.inline { display: inline; margin-left: 6px; }
.client-list, .review-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
.client-list li { border: 1px solid var(--border); border-radius: 10px; }
.client-row { display: flex; justify-content: space-between; align-items: center; gap: 16px; padding: 14px 16px; color: var(--text); }
.client-row:hover { text-decoration: none; background: var(--bg); border-radius: 10px; }
.client-main, .client-meta { display: flex; flex-direction: column; gap: 2px; min-width: 0; }
.client-meta { align-items: flex-end; font-size: 13px; }
.reason { margin: 0; padding: 0 16px 12px; font-size: 14px; color: var(--danger-text); }
.empty { border: 1px dashed var(--border); border-radius: 10px; padding: 28px; text-align: center; }
.empty p { margin: 4px 0; }
.table { width: 100%; border-collapse: collapse; margin-top: 8px; font-size: 14px; }
.table th { text-align: left; color: var(--muted); font-weight: 600; padding: 8px 12px; border-bottom: 1px solid var(--border); }
.table td { padding: 10px 12px; border-bottom: 1px solid var(--border); }
.table .cell-action { text-align: right; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.reveal {
  margin: 0 0 20px; padding: 16px 18px; border-radius: 10px; background: var(--warn-bg); color: var(--warn-text);
  border: 1px solid color-mix(in srgb, var(--warn-text) 35%, transparent);
}
.reveal h2 { color: var(--warn-text); }
.reveal p { margin: 0 0 12px; font-size: 14px; }
.copy-row { display: flex; gap: 8px; }
.copy-row input { flex: 1; height: 42px; padding: 0 12px; border: 1px solid var(--border); border-radius: 8px; background: var(--input); color: var(--text); }
textarea {
  width: 100%; padding: 10px 12px; border: 1px solid var(--border); border-radius: 8px;
  background: var(--input); color: var(--text); font: inherit; resize: vertical;
}
textarea:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
textarea[aria-invalid=true] { border-color: var(--danger-text); }
.label { display: block; font-weight: 600; font-size: 14px; margin-bottom: 6px; padding: 0; }
.optional { color: var(--muted); font-weight: 500; font-size: 12px; margin-left: 4px; }
.client-form { margin-top: 8px; }
.scope-group { border: 1px solid var(--border); border-radius: 10px; padding: 10px 14px 12px; margin: 0 0 10px; }
.scope-group legend { font-weight: 600; font-size: 13px; color: var(--muted); padding: 0 6px; }
.scope-grid { display: grid; grid-template-columns: 1fr 1fr; gap: 4px 16px; }
.check { display: flex; gap: 10px; align-items: flex-start; font-weight: 500; font-size: 14px; margin: 0; padding: 6px 0; cursor: pointer; }
.check input { margin-top: 3px; flex: none; width: 16px; height: 16px; accent-color: var(--brand); }
.check .hint { margin-top: 0; }
fieldset.choice { border: none; padding: 0; display: grid; grid-template-columns: 1fr 1fr; gap: 8px 16px; }
fieldset.choice legend { margin-bottom: 6px; }
.form-actions { display: flex; justify-content: flex-end; gap: 12px; margin-top: 24px; }
.review-card { border: 1px solid var(--border); border-radius: 12px; padding: 18px 20px; }
.review-head { display: flex; justify-content: space-between; align-items: flex-start; gap: 12px; margin-bottom: 12px; }
.review-head h2 { margin: 0; }
.review-head p { margin: 2px 0 0; }
.review-actions { display: grid; grid-template-columns: auto 1fr; gap: 20px; align-items: start; margin-top: 16px; }
.reject-form { display: grid; gap: 6px; }
.reject-form label { margin: 0; }
.reject-form button { justify-self: start; }
@media (max-width: 640px) {
  body.settings .card { padding: 20px; }
  .kv { grid-template-columns: 1fr; gap: 2px; }
  .scope-grid, fieldset.choice, .review-actions { grid-template-columns: 1fr; }
  .page-head { flex-direction: column; }
}
.pager { display: flex; justify-content: space-between; align-items: center; gap: 12px; margin-top: 20px; }
.owner-tag { font-size: 12px; color: var(--text); }
/* The invitee's invitations (src/settings/pages/invitations.ts). */
.count-badge {
  display: inline-block; min-width: 24px; padding: 0 8px; border-radius: 999px; font-size: 14px; line-height: 24px;
  text-align: center; vertical-align: middle; background: var(--brand); color: var(--brand-text);
}
.invitation-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
.invitation {
  display: flex; justify-content: space-between; align-items: center; gap: 16px;
  border: 1px solid var(--border); border-radius: 10px; padding: 14px 16px;
}
.invitation h2 { margin: 0 0 4px; overflow-wrap: anywhere; }
.invitation p { margin: 2px 0 0; }
.invitation-main { min-width: 0; }
.invitation-meta { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; font-size: 14px; }
.invitation-actions { display: flex; gap: 8px; flex: none; }
@media (max-width: 640px) {
  .invitation { flex-direction: column; align-items: stretch; }
}
/* Calendars (settings page and onboarding step). */
.calendar-list { list-style: none; margin: 0 0 16px; padding: 0; }
.calendar-list li { display: flex; align-items: center; gap: 8px; padding: 8px 0; border-bottom: 1px solid var(--border); }
.calendar-list .check-mark { color: var(--brand); font-weight: 700; }
.calendar-list li > .button { margin-left: auto; }
.provider-links { display: grid; gap: 8px; margin: 0 0 8px; }
.provider-links p { margin: 0; }
details.caldav { border: 1px solid var(--border); border-radius: 10px; padding: 10px 14px; margin: 0 0 16px; }
details.caldav summary { cursor: pointer; font-weight: 600; }
details.caldav[open] summary { margin-bottom: 12px; }
.calendar-connection { align-items: flex-start; }
.calendar-connection .invitation-main { flex: 1; }
.calendar-connection .table { margin: 12px 0; }
.connect-buttons { display: flex; flex-wrap: wrap; gap: 8px; margin: 0 0 24px; }
`;
