import { WEEKDAY_NAMES } from '@sched/policy/booking-periods';
import { LOCALES } from '@sched/policy/user-fields';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import type { FieldErrors } from '../../web/forms.ts';
import { timeZoneGroupsWith, timeZoneLabel } from '../time-zones.ts';
import { alert } from '../../web/shell.ts';

/** The form's values as text (what was submitted after an error, else the user's profile). */
export interface ProfileValues {
  name: string;
  username: string;
  timeZone: string;
  weekStart: string;
  locale: string;
  /** '' (not set), '12' or '24'. */
  timeFormat: string;
}

export interface ProfileView {
  csrf: string;
  values: ProfileValues;
  errors: FieldErrors;
  email: string;
  emailVerified: boolean;
  notice?: string | undefined;
}

const languageNames = (() => {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' });
  } catch {
    return null;
  }
})();

/** "German (de)"; the code alone when the runtime has no name for it. */
export function localeLabel(code: string): string {
  const name = (() => {
    try {
      return languageNames?.of(code === 'iw' ? 'he' : code);
    } catch {
      return undefined;
    }
  })();
  return name && name !== code ? `${name} (${code})` : code;
}

function fieldError(errors: FieldErrors, field: string): SafeHtml | string {
  const message = errors[field];
  return message ? html`<span class="field-error" id="${field}-error">${message}</span>` : '';
}

const invalid = (errors: FieldErrors, field: string) =>
  errors[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : '';

const option = (value: string, label: string, current: string) =>
  html`<option value="${value}"${value === current ? ' selected' : ''}>${label}</option>`;

function timeZoneField(view: ProfileView): SafeHtml {
  const { values, errors } = view;
  const groups = timeZoneGroupsWith(values.timeZone);
  return html`<div class="field">
<label for="timeZone">Time zone</label>
<input id="timeZone-search" class="tz-search" type="search" placeholder="Search time zones, e.g. Berlin" aria-label="Search time zones" aria-controls="timeZone" autocomplete="off" hidden>
<select id="timeZone" name="timeZone"${invalid(errors, 'timeZone')}>
${groups.map(
  (group) =>
    html`<optgroup label="${group.region}">${group.zones.map((zone) => option(zone, timeZoneLabel(zone), values.timeZone))}</optgroup>`,
)}
</select>
<span class="hint">Your availability and booking limits are counted in this zone.<span id="timeZone-search-hint" hidden> Type in the search box to narrow the list; Enter picks the first match.</span></span>
${fieldError(errors, 'timeZone')}
</div>`;
}

function verificationSection(view: ProfileView): SafeHtml {
  return html`<section aria-labelledby="email-title">
<h2 id="email-title">E-mail address</h2>
<p>${view.email} ${
    view.emailVerified
      ? html`<span class="badge badge-approved">Verified</span>`
      : html`<span class="badge badge-pending">Not verified</span>`
  }</p>
${
  view.emailVerified
    ? ''
    : html`<p class="muted small-text">Until you open the link in the verification e-mail you cannot create OAuth clients or API keys, and invitations sent to this address stay hidden.</p>
<form method="post" action="${PATHS.settingsVerificationEmail}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<button type="submit" class="secondary small">Resend verification e-mail</button>
</form>`
}
</section>`;
}

export function profilePage(view: ProfileView): SafeHtml {
  const { values, errors } = view;
  const hasErrors = Object.keys(errors).length > 0;
  return html`<h1>Profile</h1>
<p class="lead">How you appear to others and how times are shown to you. Applications you authorize read the same profile.</p>
${alert('ok', view.notice)}
${alert('error', errors.form ?? (hasErrors ? 'Please correct the fields marked below.' : undefined))}
<form method="post" action="${PATHS.settingsProfile}" class="profile-form" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="row">
<div class="field">
<label for="name">Name</label>
<input id="name" name="name" type="text" maxlength="200" autocomplete="name" value="${values.name}"${invalid(errors, 'name')}>
${fieldError(errors, 'name')}
</div>
<div class="field">
<label for="username">Username <span class="optional">optional</span></label>
<input id="username" name="username" type="text" maxlength="64" autocomplete="username" spellcheck="false" value="${values.username}"${invalid(errors, 'username')}>
<span class="hint">Letters and digits, with single dots, dashes or underscores between them.</span>
${fieldError(errors, 'username')}
</div>
</div>
${timeZoneField(view)}
<div class="row">
<div class="field">
<label for="weekStart">Week starts on</label>
<select id="weekStart" name="weekStart"${invalid(errors, 'weekStart')}>
${WEEKDAY_NAMES.map((day) => option(day, day, values.weekStart))}
</select>
${fieldError(errors, 'weekStart')}
</div>
<div class="field">
<label for="locale">Language</label>
<select id="locale" name="locale"${invalid(errors, 'locale')}>
${[...LOCALES].sort((a, b) => localeLabel(a).localeCompare(localeLabel(b))).map((code) => option(code, localeLabel(code), values.locale))}
</select>
${fieldError(errors, 'locale')}
</div>
<div class="field">
<label for="timeFormat">Time format</label>
<select id="timeFormat" name="timeFormat"${invalid(errors, 'timeFormat')}>
${option('', 'Not set', values.timeFormat)}
${option('12', '12-hour (2:30 PM)', values.timeFormat)}
${option('24', '24-hour (14:30)', values.timeFormat)}
</select>
${fieldError(errors, 'timeFormat')}
</div>
</div>
<div class="form-actions">
<button type="submit" class="primary">Save profile</button>
</div>
</form>
${verificationSection(view)}
<section aria-labelledby="delete-title">
<h2 id="delete-title">Delete account</h2>
<p class="muted small-text">Deleting your account signs you out everywhere and cannot be undone.</p>
<a class="button danger" href="${PATHS.settingsDeleteAccount}">Delete account…</a>
</section>`;
}
