import type { Context } from 'koa';
import { CSRF_FIELD } from '../http/csrf.ts';
import { html, type SafeHtml } from '../pages/html.ts';
import { sendPage } from '../pages/layout.ts';
import { PATHS } from '../paths.ts';
import type { SignedIn } from './session.ts';

export type Section =
  | 'account'
  | 'profile'
  | 'password'
  | 'invitations'
  | 'api-keys'
  | 'connected-apps'
  | 'calendars'
  | 'clients'
  | 'review'
  | 'admin';

export interface ShellView {
  signedIn: SignedIn;
  csrf: string;
  section: Section;
}

/** The settings pages' header: who is signed in, the sections, and signing out. */
export function shell(view: ShellView, body: SafeHtml): SafeHtml {
  const { user, actor } = view.signedIn;
  const tab = (section: Section, href: string, label: string) =>
    html`<a href="${href}"${view.section === section ? html` class="current" aria-current="page"` : ''}>${label}</a>`;
  return html`<header class="settings-head">
<nav class="tabs" aria-label="Settings">
${tab('account', PATHS.settings, 'Account')}
${tab('profile', PATHS.settingsProfile, 'Profile')}
${tab('password', PATHS.settingsPassword, 'Password')}
${tab('invitations', PATHS.settingsInvitations, 'Invitations')}
${tab('api-keys', PATHS.settingsApiKeys, 'API keys')}
${tab('calendars', PATHS.settingsCalendars, 'Calendars')}
${tab('connected-apps', PATHS.settingsConnectedApps, 'Connected apps')}
${tab('clients', PATHS.settingsClients, 'OAuth clients')}
${actor.serviceAdmin ? tab('review', PATHS.adminClients, 'Client review') : ''}
${actor.serviceAdmin ? tab('admin', PATHS.adminUsers, 'Admin console') : ''}
</nav>
<form method="post" action="${PATHS.settingsSignOut}" class="signout">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<span class="who">${user.name ?? user.email}</span>
<button type="submit" class="link-button">Sign out</button>
</form>
</header>
${body}`;
}

/** Sends a settings page: wide layout, never cached, CSP without scripts unless `copyScript` or `script` (one same-origin path). */
export function sendSettingsPage(
  ctx: Context,
  status: number,
  title: string,
  body: SafeHtml,
  options: { copyScript?: boolean; script?: string } = {},
): void {
  sendPage(ctx, status, title, body, {
    bodyClass: 'settings',
    ...(options.copyScript ? { script: PATHS.settingsScript } : {}),
    ...(options.script ? { script: options.script } : {}),
  });
}

/** Alerts: errors, notices and warnings. */
export const alert = (kind: 'error' | 'ok' | 'warn', message: SafeHtml | string | undefined) =>
  message
    ? html`<div class="alert alert-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</div>`
    : '';

const STATUS_LABELS = {
  PENDING: ['In review', 'pending'],
  APPROVED: ['Approved', 'approved'],
  REJECTED: ['Rejected', 'rejected'],
} as const;

export const statusBadge = (status: keyof typeof STATUS_LABELS) =>
  html`<span class="badge badge-${STATUS_LABELS[status][1]}">${STATUS_LABELS[status][0]}</span>`;

export const formatDate = (value: Date | string) =>
  new Date(value).toLocaleDateString('en-GB', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });
