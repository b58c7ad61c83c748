import { createClientBody, updateClientBody } from '@sched/clients/schemas';
import { z } from 'zod';
import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import { KNOWN_SCOPES } from '@sched/policy/scopes';
import type { Params } from '../http/params.ts';
import { type FieldErrors, fieldErrorsOf, lines, optionalText } from '../web/forms.ts';
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
    organizationId: form.organizationId ?? '',
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
    organizationId: client.organizationId === null ? '' : String(client.organizationId),
  };
}

/** A parsed form: the library's input, or the messages to show next to the fields (always a 400). */
export type Parsed<T> = { ok: true; input: T } | { ok: false; status: 400; errors: FieldErrors };

function parsedWith<S extends z.ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const result = schema.safeParse(input);
  return result.success
    ? { ok: true, input: result.data }
    : { ok: false, status: 400, errors: fieldErrorsOf(result.error) };
}

const selectedScopes = (form: Params) =>
  Object.keys(form)
    .filter((name) => name.startsWith('scope.'))
    .map((name) => name.slice(6));

/**
 * The reviewed fields, which the create and edit forms share. An emptied optional field is
 * `emptyAs`: left out on creation (undefined), cleared on edit (null).
 */
const reviewedFields = <E extends undefined | null>(form: Params, emptyAs: E) => ({
  name: form.name ?? '',
  redirectUris: lines(form.redirectUris),
  scopes: selectedScopes(form),
  logo: optionalText(form.logo, emptyAs),
  websiteUrl: optionalText(form.websiteUrl, emptyAs),
  purpose: optionalText(form.purpose, emptyAs),
});

/**
 * The owner select: empty is a personal client, otherwise an organization id written in decimal.
 * Whether the user may pick that organization is `createClient`'s rule (the API's), not checked here.
 */
const ownerField = z.union([
  z.literal('').transform(() => undefined),
  z
    .string()
    .regex(/^[1-9]\d{0,14}$/)
    .transform(Number),
]);
const OWNER_INVALID = 'choose an owner from the list';

export function parseCreateForm(form: Params): Parsed<z.output<typeof createClientBody>> {
  const owner = ownerField.safeParse(form.organizationId ?? '');
  const organizationId = owner.success ? owner.data : undefined;
  const parsed = parsedWith(createClientBody, {
    ...reviewedFields(form, undefined),
    clientType: form.clientType ?? 'confidential',
    ...(organizationId !== undefined ? { organizationId } : {}),
  });
  if (owner.success) return parsed;
  return {
    ok: false,
    status: 400,
    errors: { ...(parsed.ok ? {} : parsed.errors), organizationId: OWNER_INVALID },
  };
}

/** An edit sends every reviewed field of the form; the owner and the type are fixed at creation. */
export const parseUpdateForm = (form: Params): Parsed<z.output<typeof updateClientBody>> =>
  parsedWith(updateClientBody, reviewedFields(form, null));
