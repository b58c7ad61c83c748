import { CSRF_FIELD } from '../http/csrf.ts';
import { interactionPath } from '../paths.ts';
import { html, type SafeHtml } from './html.ts';

export type SignUpField = 'name' | 'email' | 'username' | 'password';

export interface SignUpView {
  uid: string;
  csrf: string;
  clientName: string | undefined;
  values?: Partial<Record<Exclude<SignUpField, 'password'>, string>>;
  errors?: Partial<Record<SignUpField, string>>;
  error?: string;
  /** Where "Sign in" leads (default: the interaction, whose first step is the sign-in form). */
  signInHref?: string;
  /** Where the form posts (default: the interaction's sign-up step) and its extra hidden fields. */
  action?: string;
  hidden?: Readonly<Record<string, string>>;
  /** The line under the heading when no client is named (default "to continue"). */
  lead?: string;
  /** Onboarding embed: a Cancel button that closes the dialog (the page's script posts onboarding:close). */
  cancel?: boolean;
  /** Shown above the heading (the onboarding embed's progress). */
  header?: SafeHtml;
}

const FIELDS: Array<{ name: SignUpField; label: string; type: string; autocomplete: string; hint?: string }> =
  [
    { name: 'name', label: 'Name', type: 'text', autocomplete: 'name' },
    { name: 'email', label: 'Email', type: 'email', autocomplete: 'email' },
    {
      name: 'username',
      label: 'Username',
      type: 'text',
      autocomplete: 'username',
      hint: '2 to 40 letters, digits, dots, dashes or underscores',
    },
    {
      name: 'password',
      label: 'Password',
      type: 'password',
      autocomplete: 'new-password',
      hint: 'At least 8 characters',
    },
  ];

function field(view: SignUpView, spec: (typeof FIELDS)[number], first: boolean): SafeHtml {
  const error = view.errors?.[spec.name];
  const hintId = `${spec.name}-hint`;
  const errorId = `${spec.name}-error`;
  // The error message restates the rule, so the hint gives way to it.
  const hint = error ? undefined : spec.hint;
  const describedBy = [hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ');
  const value = spec.name === 'password' ? '' : (view.values?.[spec.name] ?? '');
  return html`<div class="field">
<label for="${spec.name}">${spec.label}</label>
<input id="${spec.name}" name="${spec.name}" type="${spec.type}" autocomplete="${spec.autocomplete}" required value="${value}"${describedBy ? html` aria-describedby="${describedBy}"` : ''}${error ? html` aria-invalid="true"` : ''}${first ? html` autofocus` : ''}>
${hint ? html`<span class="hint" id="${hintId}">${hint}</span>` : ''}
${error ? html`<span class="field-error" id="${errorId}">${error}</span>` : ''}
</div>`;
}

export function signUpPage(view: SignUpView): SafeHtml {
  return html`${view.header ?? ''}<h1>Create account</h1>
<p class="lead">${view.clientName ? html`to continue to <strong>${view.clientName}</strong>` : (view.lead ?? 'to continue')}</p>
${view.error ? html`<div class="alert alert-error" role="alert">${view.error}</div>` : ''}
<form method="post" action="${view.action ?? interactionPath(view.uid, 'signup')}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrf}">
${Object.entries(view.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${FIELDS.map((spec, i) => field(view, spec, i === 0))}
<button type="submit" class="primary block">Create account</button>
</form>
<p class="alt">Already have an account? <a href="${view.signInHref ?? interactionPath(view.uid)}">Sign in</a></p>
${view.cancel ? html`<p class="cancel-row"><button type="button" class="link-button" data-embed-close>Cancel</button></p>` : ''}`;
}
