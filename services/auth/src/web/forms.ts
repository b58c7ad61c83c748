import { AppError, BadRequestError, type FieldIssue } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { AuthDeps } from '../deps.ts';
import { CSRF_FIELD, issueCsrfToken, verifyCsrfToken } from '../http/csrf.ts';
import { type Params, readParams } from '../http/params.ts';

/**
 * Forms of the settings and admin pages. Every form carries a CSRF token bound to the signed-in
 * user (a token issued to one account is refused for another, also after signing out and in);
 * the sign-in form's token is bound to the sign-in purpose.
 */
export const SIGN_IN_PURPOSE = 'settings:sign-in';
export const userPurpose = (userId: number) => `settings:user:${userId}`;

export const csrfFor = (deps: AuthDeps, ctx: Context, purpose: string): string =>
  issueCsrfToken(ctx, deps.csrf, purpose);

/** Reads a urlencoded form (16 KiB, strict) and checks its CSRF token (403 page otherwise). */
export async function readForm(deps: AuthDeps, ctx: Context, purpose: string): Promise<Params> {
  const form = await readParams(ctx, { json: false });
  verifyCsrfToken(ctx, deps.csrf, purpose, form[CSRF_FIELD]);
  return form;
}

/** Field name -> message, shown next to the field. */
export type FieldErrors = Record<string, string>;

/** The first message of each failing field of a zod result (`redirectUris.2` counts as `redirectUris`). */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form');
    const index = typeof issue.path[1] === 'number' ? ` (line ${issue.path[1] + 1})` : '';
    errors[field] ??= `${issue.message}${index}`;
  }
  return errors;
}

/** The field errors of a library BadRequestError's details (`body.scopes` -> `scopes`). */
export function fieldErrorsOfDetails(details: unknown, fallback: string): FieldErrors {
  const errors: FieldErrors = {};
  if (Array.isArray(details)) {
    for (const detail of details as FieldIssue[]) {
      const field =
        String(detail.field ?? '')
          .replace(/^body\./, '')
          .split('.')[0] || 'form';
      errors[field] ??= detail.message;
    }
  }
  if (Object.keys(errors).length === 0) errors.form = fallback;
  return errors;
}

/** A library call's result, or what to show on the form instead (status and field messages). */
export type FormOutcome<T> = { ok: true; value: T } | { ok: false; status: number; errors: FieldErrors };

/**
 * Runs a library call whose refusals the user fixes on the form rather than on an error page: a
 * 400 becomes field errors (from its details), and so does any other refusal that `fieldOf` names
 * a field for (with its own status, e.g. 403 for an organization the user may not use).
 */
export async function onForm<T>(
  run: () => Promise<T>,
  fieldOf: (error: AppError) => string | undefined = () => undefined,
): Promise<FormOutcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof BadRequestError)
      return { ok: false, status: 400, errors: fieldErrorsOfDetails(error.details, error.message) };
    const field = error instanceof AppError ? fieldOf(error) : undefined;
    if (field === undefined || !(error instanceof AppError)) throw error;
    return { ok: false, status: error.status, errors: { [field]: error.message } };
  }
}

/** Lines of a textarea, trimmed, blank ones dropped. */
export const lines = (value: string | undefined): string[] =>
  (value ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** An optional text field: trimmed; empty is `emptyAs` (undefined on creation, null to clear on edit). */
export function optionalText<E extends undefined | null>(value: string | undefined, emptyAs: E): string | E {
  const trimmed = (value ?? '').trim();
  return trimmed === '' ? emptyAs : trimmed;
}
