import { TIME_ZONES, WEEK_STARTS } from '@sched/policy/onboarding';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { interactionPath } from '../../paths.ts';
import { progress } from '../../embed-flow/pages/progress.ts';

export type ProfileField = 'name' | 'username' | 'time_zone' | 'week_start';

export interface ProfileView {
  uid: string;
  csrf: string;
  values: Record<ProfileField, string>;
  errors?: Partial<Record<ProfileField, string>>;
  /** Let the page's script pick the browser's zone (the user has not chosen one yet). */
  detectTimeZone: boolean;
}

function describedBy(field: ProfileField, view: ProfileView, hint: boolean): SafeHtml {
  const ids = [
    hint && !view.errors?.[field] ? `${field}-hint` : '',
    view.errors?.[field] ? `${field}-error` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return html`${ids ? html` aria-describedby="${ids}"` : ''}${view.errors?.[field] ? html` aria-invalid="true"` : ''}`;
}

const fieldError = (field: ProfileField, view: ProfileView): SafeHtml =>
  html`${view.errors?.[field] ? html`<span class="field-error" id="${field}-error">${view.errors[field]}</span>` : ''}`;

function zoneOptions(selected: string): SafeHtml {
  const zones = TIME_ZONES.includes(selected) ? TIME_ZONES : [selected, ...TIME_ZONES];
  return html`${zones.map(
    (zone) =>
      html`<option value="${zone}"${zone === selected ? html` selected` : ''}>${zone.replaceAll('_', ' ')}</option>`,
  )}`;
}

export function profilePage(view: ProfileView): SafeHtml {
  const { values } = view;
  return html`${progress('Profile')}
<h1>Set up your profile</h1>
<p class="lead">This is how people see you when they book time with you.</p>
<form method="post" action="${interactionPath(view.uid, 'profile')}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
<div class="field">
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" required value="${values.name}"${describedBy('name', view, false)} autofocus>
${fieldError('name', view)}
</div>
<div class="field">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" required value="${values.username}"${describedBy('username', view, true)}>
${view.errors?.username ? '' : html`<span class="hint" id="username-hint">Your booking page: 2 to 40 letters, digits, dots, dashes or underscores</span>`}
${fieldError('username', view)}
</div>
<div class="row">
<div class="field">
<label for="time_zone">Time zone</label>
<select id="time_zone" name="time_zone"${view.detectTimeZone ? html` data-detect-time-zone` : ''}${describedBy('time_zone', view, false)}>
${zoneOptions(values.time_zone)}
</select>
${fieldError('time_zone', view)}
</div>
<div class="field">
<label for="week_start">Week starts on</label>
<select id="week_start" name="week_start"${describedBy('week_start', view, false)}>
${WEEK_STARTS.map((day) => html`<option value="${day}"${day === values.week_start ? html` selected` : ''}>${day}</option>`)}
</select>
${fieldError('week_start', view)}
</div>
</div>
<button type="submit" class="primary block">Continue</button>
</form>
<p class="cancel-row"><button type="button" class="link-button" data-embed-close>Cancel</button></p>`;
}
