import { createClientBody, updateClientBody } from '@sched/clients/schemas';
import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import { KNOWN_SCOPES } from '@sched/policy/scopes';
import type { Params } from '../http/params.ts';
import { type FieldErrors, fieldErrorsOf, lines, optionalText } from './forms.ts';
import { type ClientFormValues, scopeField } from './pages/client-form.ts';

/**
 * Form fields <-> the library's input schemas (`@sched/clients/schemas`, the same ones the API
 * validates JSON with), so a value refused by the API is refused here with the same message.
 */

/** What the user typed, to show the form again after an error. */
export function formValues(
  form: Params,
  fallbackType: ClientFormValues['clientType'] = 'confidential',
): ClientFormValues {
  const type =
    form.clientType === 'public' || form.clientType === 'confidential' ? form.clientType : fallbackType;
  return {
    name: form.name ?? '',
    redirectUris: form.redirectUris ?? '',
    scopes: new Set(KNOWN_SCOPES.filter((scope) => form[scopeField(scope)] !== undefined)),
    clientType: type,
    logo: form.logo ?? '',
    websiteUrl: form.websiteUrl ?? '',
    purpose: form.purpose ?? '',
  };
}

export function valuesOf(client: OAuthClient): ClientFormValues {
  return {
    name: client.name,
    redirectUris: client.redirectUris.join('\n'),
    scopes: new Set(client.scopes),
    clientType: client.clientType,
    logo: client.logo ?? '',
    websiteUrl: client.websiteUrl ?? '',
    purpose: client.purpose ?? '',
  };
}

type Parsed<T> = { ok: true; input: T } | { ok: false; errors: FieldErrors };

const selectedScopes = (form: Params) =>
  Object.keys(form)
    .filter((name) => name.startsWith('scope.'))
    .map((name) => name.slice(6));

export function parseCreateForm(form: Params): Parsed<ReturnType<typeof createClientBody.parse>> {
  const result = createClientBody.safeParse({
    name: form.name ?? '',
    redirectUris: lines(form.redirectUris),
    scopes: selectedScopes(form),
    clientType: form.clientType ?? 'confidential',
    logo: optionalText(form.logo, undefined),
    websiteUrl: optionalText(form.websiteUrl, undefined),
    purpose: optionalText(form.purpose, undefined),
  });
  return result.success
    ? { ok: true, input: result.data }
    : { ok: false, errors: fieldErrorsOf(result.error) };
}

/** An edit sends every field of the form; an emptied optional field clears it. */
export function parseUpdateForm(form: Params): Parsed<ReturnType<typeof updateClientBody.parse>> {
  const result = updateClientBody.safeParse({
    name: form.name ?? '',
    redirectUris: lines(form.redirectUris),
    scopes: selectedScopes(form),
    logo: optionalText(form.logo, null),
    websiteUrl: optionalText(form.websiteUrl, null),
    purpose: optionalText(form.purpose, null),
  });
  return result.success
    ? { ok: true, input: result.data }
    : { ok: false, errors: fieldErrorsOf(result.error) };
}
