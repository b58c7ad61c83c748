// OAuth scope catalogue and scope enforcement for access tokens.

export const USER_SCOPES = [
  'EVENT_TYPE_READ',
  'EVENT_TYPE_WRITE',
  'BOOKING_READ',
  'BOOKING_WRITE',
  'SCHEDULE_READ',
  'SCHEDULE_WRITE',
  'APPS_READ',
  'APPS_WRITE',
  'PROFILE_READ',
  'PROFILE_WRITE',
] as const;

export const TEAM_SCOPES = [
  'TEAM_EVENT_TYPE_READ',
  'TEAM_EVENT_TYPE_WRITE',
  'TEAM_BOOKING_READ',
  'TEAM_BOOKING_WRITE',
  'TEAM_SCHEDULE_READ',
  'TEAM_SCHEDULE_WRITE',
  'TEAM_PROFILE_READ',
  'TEAM_PROFILE_WRITE',
  'TEAM_MEMBERSHIP_READ',
  'TEAM_MEMBERSHIP_WRITE',
] as const;

export const ORG_SCOPES = [
  'ORG_EVENT_TYPE_READ',
  'ORG_EVENT_TYPE_WRITE',
  'ORG_BOOKING_READ',
  'ORG_BOOKING_WRITE',
  'ORG_SCHEDULE_READ',
  'ORG_SCHEDULE_WRITE',
  'ORG_PROFILE_READ',
  'ORG_PROFILE_WRITE',
  'ORG_MEMBERSHIP_READ',
  'ORG_MEMBERSHIP_WRITE',
] as const;

export const LEGACY_SCOPES = ['READ_BOOKING', 'READ_PROFILE'] as const;

/**
 * OpenID Connect, lowercase as the standard spells them: `openid` yields an ID token, `profile` and
 * `email` its claims and the userinfo answer. They open nothing of the resource API (no route names
 * them) and, like every scope, must be registered on the client.
 */
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;

/** The 30 current API scopes. New clients register these and the OIDC scopes. */
export const SCOPES = [...USER_SCOPES, ...TEAM_SCOPES, ...ORG_SCOPES] as const;
/** Every recognised scope value: the API scopes, the legacy values and the OIDC scopes. */
export const KNOWN_SCOPES = [...SCOPES, ...LEGACY_SCOPES, ...OIDC_SCOPES] as const;

export type UserScope = (typeof USER_SCOPES)[number];
export type TeamScope = (typeof TEAM_SCOPES)[number];
export type OrgScope = (typeof ORG_SCOPES)[number];
export type LegacyScope = (typeof LEGACY_SCOPES)[number];
export type OidcScope = (typeof OIDC_SCOPES)[number];
export type Scope = (typeof SCOPES)[number];
export type KnownScope = (typeof KNOWN_SCOPES)[number];
export type ScopeLevel = 'user' | 'team' | 'org' | 'legacy' | 'oidc';

const has = (list: readonly string[], value: string): boolean => list.includes(value);

export const isScope = (value: string): value is Scope => has(SCOPES, value);
export const isKnownScope = (value: string): value is KnownScope => has(KNOWN_SCOPES, value);
export const isLegacyScope = (value: string): value is LegacyScope => has(LEGACY_SCOPES, value);
export const isOidcScope = (value: string): value is OidcScope => has(OIDC_SCOPES, value);
/** What a client may register: the 30 API scopes and the OIDC scopes (never the legacy values). */
export const isRegistrableScope = (value: string): value is Scope | OidcScope =>
  isScope(value) || isOidcScope(value);

export function scopeLevel(scope: KnownScope): ScopeLevel {
  if (has(LEGACY_SCOPES, scope)) return 'legacy';
  if (has(OIDC_SCOPES, scope)) return 'oidc';
  if (scope.startsWith('ORG_')) return 'org';
  if (scope.startsWith('TEAM_')) return 'team';
  return 'user';
}

/**
 * Parses a `scope` value: space and/or comma separated (both are accepted), or an array of such
 * values (the embed passes an array). Trims, drops empties, de-duplicates, keeps first-seen order.
 * Does not validate the values: see `checkAuthorizationScopes`.
 */
export function parseScopeParameter(raw: string | readonly string[] | null | undefined): string[] {
  if (raw == null) return [];
  const parts = (typeof raw === 'string' ? [raw] : raw).flatMap((s) => s.split(/[\s,]+/));
  return [...new Set(parts.filter((s) => s !== ''))];
}

/** Token response `scope` field: space separated. */
export const formatScopeParameter = (scopes: readonly string[]): string => scopes.join(' ');

/**
 * A client (or token) is legacy when it has no scopes or only READ_BOOKING / READ_PROFILE. An OIDC
 * scope counts like any other: a client with `openid` is not legacy, so its tokens are checked
 * (one with only OIDC scopes reaches no API endpoint).
 */
export const isLegacyScopeSet = (scopes: readonly string[]): boolean => scopes.every(isLegacyScope);

/**
 * Does one granted scope satisfy one required scope? Exact match, or ORG_X for TEAM_X (the only
 * implication there is). Deliberately NOT implied: _WRITE -> _READ, TEAM_ -> ORG_,
 * ORG_/TEAM_ -> individual scopes, legacy values -> anything.
 */
export function scopeSatisfies(granted: string, required: string): boolean {
  if (granted === required) return isKnownScope(granted);
  if (!isScope(granted) || !isScope(required)) return false;
  return (
    granted.startsWith('ORG_') &&
    required.startsWith('TEAM_') &&
    granted.slice('ORG_'.length) === required.slice('TEAM_'.length)
  );
}

/** Does a set of granted scopes satisfy one required scope? */
export const hasScope = (granted: readonly string[], required: string): boolean =>
  granted.some((g) => scopeSatisfies(g, required));

/**
 * A route's scope declaration: one scope, or an array of alternatives of which ANY one suffices
 * (e.g. a read endpoint reachable with either TEAM_X_READ or a broader scope). Omitted / empty
 * means the endpoint names no scope. Public endpoints (bookings create/cancel/reschedule, slots)
 * must not call `checkTokenScopes` at all.
 */
export type ScopeRequirement = Scope | readonly Scope[] | null | undefined;

export type ScopeCheck =
  | { allowed: true; reason: 'legacy_token' | 'scope_granted'; matched: Scope | null }
  | { allowed: false; reason: 'endpoint_has_no_scope' | 'missing_scope'; missing: Scope[]; message: string };

export const NO_SCOPE_ENDPOINT_MESSAGE =
  'insufficient_scope: this endpoint is not available for third-party OAuth tokens';

export function insufficientScopeMessage(missing: readonly string[], tokenScopes: readonly string[]): string {
  return (
    'insufficient_scope: token does not have the required scopes. ' +
    `Required: ${missing.join(', ')}. Token has: ${tokenScopes.join(', ')}`
  );
}

/**
 * Scope check for an OAuth access token. An endpoint declaring no scope refuses every OAuth token,
 * legacy ones included (org roles and permissions, API keys, OAuth-client management and admin
 * are not reachable with OAuth tokens). Otherwise legacy tokens are not checked and a declared
 * scope must be satisfied.
 * `legacy` comes from the token record (set at issue time), so a token issued before its client
 * migrated stays unchecked until the user re-authorizes.
 */
export function checkTokenScopes(input: {
  requiredScopes: ScopeRequirement;
  grantedScopes: readonly string[];
  legacy: boolean;
}): ScopeCheck {
  const required: readonly Scope[] =
    input.requiredScopes == null
      ? []
      : typeof input.requiredScopes === 'string'
        ? [input.requiredScopes]
        : input.requiredScopes;
  if (required.length === 0) {
    return {
      allowed: false,
      reason: 'endpoint_has_no_scope',
      missing: [],
      message: NO_SCOPE_ENDPOINT_MESSAGE,
    };
  }
  if (input.legacy) return { allowed: true, reason: 'legacy_token', matched: null };
  const matched = required.find((r) => hasScope(input.grantedScopes, r));
  if (matched !== undefined) return { allowed: true, reason: 'scope_granted', matched };
  return {
    allowed: false,
    reason: 'missing_scope',
    missing: [...required],
    message: insufficientScopeMessage(required, input.grantedScopes),
  };
}
