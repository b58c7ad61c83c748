import { CLIENT_TYPES, REVIEW_STATUSES } from '@sched/db/queries/oauth-clients';
import { isKnownScope, isRegistrableScope } from '@sched/policy/scopes';
import { z } from 'zod';

/** A positive integer id in a JSON body (the same rule as the API's other id fields). */
const idValue = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

/** Limits of OAuth-client inputs (docs/oauth-clients.md). */
export const LIMITS = {
  name: 100,
  purpose: 1000,
  url: 2048,
  redirectUris: 10,
  reason: 2000,
} as const;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI is refused, or null: absolute; https, or http on a loopback host (RFC 8252
 * native apps and local development); no fragment (RFC 6749 3.1.2); no user info.
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (value.includes('#')) return 'must not contain a fragment (#)';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must use https (http is allowed only for localhost, 127.0.0.1 and [::1])';
}

/** One redirect URI (also the booking redirects). */
export const redirectUriInput = z
  .string()
  .max(LIMITS.url)
  .superRefine((value, ctx) => {
    const problem = redirectUriProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ description: 'absolute URL; https except on localhost, 127.0.0.1 and [::1]; no fragment' });

const normalized = (value: string): string => {
  try {
    return new URL(value).href;
  } catch {
    return value;
  }
};

export const redirectUrisInput = z
  .array(redirectUriInput)
  .min(1, 'at least one redirect URI is required')
  .max(LIMITS.redirectUris, `at most ${LIMITS.redirectUris} redirect URIs`)
  .superRefine((values, ctx) => {
    const seen = new Set<string>();
    values.forEach((value, index) => {
      const key = normalized(value);
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [index], message: 'duplicate redirect URI' });
      seen.add(key);
    });
  });

/** An https URL (logo, website). */
export const httpsUrlInput = z
  .string()
  .max(LIMITS.url)
  .superRefine((value, ctx) => {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      // reported below
    }
    if (url === null) ctx.addIssue({ code: 'custom', message: 'must be an absolute URL' });
    else if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must be an https URL' });
  });

const noDuplicates = (values: readonly string[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    if (seen.has(value)) ctx.addIssue({ code: 'custom', path: [index], message: `duplicate scope ${value}` });
    seen.add(value);
  });
};

/** Scopes at creation: only the 30 current ones and the OIDC ones (openid, profile, email), at least one. */
export const creationScopesInput = z
  .array(
    z
      .string()
      .refine(isRegistrableScope, { error: (issue) => `'${String(issue.input)}' is not a known scope` }),
  )
  .min(1, 'at least one scope is required')
  .max(33)
  .superRefine(noDuplicates);

/** Scopes in an update: known values (legacy ones too; client-review decides what may be saved). */
export const updateScopesInput = z
  .array(
    z.string().refine(isKnownScope, { error: (issue) => `'${String(issue.input)}' is not a known scope` }),
  )
  .max(35)
  .superRefine(noDuplicates);

const name = z.string().trim().min(1, 'must not be empty').max(LIMITS.name);
const purpose = z.string().trim().min(1, 'must not be empty').max(LIMITS.purpose);

/** Settings that never send a client back to review. */
const settingsFields = {
  areEmailsEnabled: z.boolean().optional(),
  areDefaultEventTypesEnabled: z.boolean().optional(),
  areCalendarEventsEnabled: z.boolean().optional(),
  bookingRedirectUri: redirectUriInput.nullable().optional(),
  bookingCancelRedirectUri: redirectUriInput.nullable().optional(),
  bookingRescheduleRedirectUri: redirectUriInput.nullable().optional(),
};

export const createClientBody = z.strictObject({
  name,
  redirectUris: redirectUrisInput,
  scopes: creationScopesInput,
  clientType: z.enum(CLIENT_TYPES).optional(),
  logo: httpsUrlInput.nullable().optional(),
  websiteUrl: httpsUrlInput.nullable().optional(),
  purpose: purpose.nullable().optional(),
  organizationId: idValue.optional(),
  ...settingsFields,
});

export type CreateClientInput = z.infer<typeof createClientBody>;

export const updateClientBody = z.strictObject({
  name: name.optional(),
  redirectUris: redirectUrisInput.optional(),
  scopes: updateScopesInput.optional(),
  logo: httpsUrlInput.nullable().optional(),
  websiteUrl: httpsUrlInput.nullable().optional(),
  purpose: purpose.nullable().optional(),
  ...settingsFields,
});

export const clientIdParams = z.strictObject({ clientId: z.string().max(200) });

/**
 * The review decisions also take the URL-encoded https URL of an agent's metadata document as
 * client id (up to 1000 characters, as the clients table allows).
 */
export const reviewClientIdParams = z.strictObject({ clientId: z.string().max(1000) });

export const reviewStatusQuery = z.enum(REVIEW_STATUSES);

export const rejectBody = z.strictObject({
  reason: z.string().trim().min(1, 'a rejection reason is required').max(LIMITS.reason),
});

export type UpdateClientInput = z.infer<typeof updateClientBody>;

/** A numeric id in a path (a secret's id): a positive integer written in decimal. */
export const idParam = z
  .string()
  .regex(/^[1-9]\d{0,14}$/, 'must be a positive integer')
  .transform(Number);
