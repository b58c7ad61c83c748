// Validation of the `scope` requested at the authorization page.
import { type Role, roleAtLeast } from './roles.ts';
import { isKnownScope, isOidcScope, scopeSatisfies } from './scopes.ts';

export const SCOPE_REQUIRED_MESSAGE = 'scope parameter is required for this OAuth client';
export const UNKNOWN_SCOPE_DESCRIPTION = 'Requested scope is not a recognized scope';
export const SCOPE_EXCEEDS_CLIENT_DESCRIPTION = "Requested scope exceeds the client's registered scopes";

export type AuthorizationScopeCheck =
  | { ok: true; scopes: string[] }
  /** scope_required: shown on the page (400); the other two: redirect with `error`. */
  | { ok: false; error: 'scope_required' | 'invalid_scope' | 'invalid_request'; description: string };

/**
 * `requested` is the output of `parseScopeParameter`. Legacy clients skip the "registered scopes"
 * check: a legacy client's migration adds the scope parameter to the URL BEFORE saving scopes in
 * settings, so a legacy client may ask for scopes it has not registered yet. A registered ORG_X
 * also covers a request for TEAM_X (narrower than what was reviewed). The OIDC scopes (`openid`,
 * `profile`, `email`) are never part of that migration: every client, legacy or not, must have them
 * registered to ask for them.
 */
export function checkAuthorizationScopes(input: {
  requested: readonly string[];
  clientScopes: readonly string[];
  legacyClient: boolean;
}): AuthorizationScopeCheck {
  const { requested, clientScopes, legacyClient } = input;
  if (requested.length === 0 && !legacyClient) {
    return { ok: false, error: 'scope_required', description: SCOPE_REQUIRED_MESSAGE };
  }
  if (!requested.every(isKnownScope)) {
    return { ok: false, error: 'invalid_scope', description: UNKNOWN_SCOPE_DESCRIPTION };
  }
  const covered = (s: string) => clientScopes.some((c) => scopeSatisfies(c, s));
  const oidcCovered = requested.filter(isOidcScope).every(covered);
  if (!oidcCovered || (!legacyClient && !requested.every(covered))) {
    return { ok: false, error: 'invalid_request', description: SCOPE_EXCEEDS_CLIENT_DESCRIPTION };
  }
  return { ok: true, scopes: [...requested] };
}

/** What the signed-in user is, as far as granting scopes goes: accepted memberships only. */
export interface GrantingUser {
  organizationRoles: readonly Role[];
  teamRoles: readonly Role[];
}

export const INSUFFICIENT_PERMISSIONS_DESCRIPTION =
  'The user has insufficient permissions to grant the requested scope';

/**
 * The requested scopes this user cannot grant (the flow redirects back with an error). A grant can
 * only hand over what the user could do: ORG_ scopes need an organization membership; TEAM_ scopes
 * need a team membership, or an organization ADMIN or OWNER role (which reaches every team of the
 * organization). User-level and legacy scopes need nothing. Finer rules (which role, which
 * permission) are the resource API's, per request.
 */
export function scopesBeyondUser(requested: readonly string[], user: GrantingUser): string[] {
  const inOrganization = user.organizationRoles.length > 0;
  const reachesTeams =
    user.teamRoles.length > 0 || user.organizationRoles.some((role) => roleAtLeast(role, 'ADMIN'));
  return requested.filter((scope) => {
    if (scope.startsWith('ORG_')) return !inOrganization;
    if (scope.startsWith('TEAM_')) return !reachesTeams;
    return false;
  });
}
