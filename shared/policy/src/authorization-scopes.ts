// Validation of the `scope` requested at the authorization page (contract §5).
import { isKnownScope, scopeSatisfies } from './scopes.ts';

export const SCOPE_REQUIRED_MESSAGE = 'scope parameter is required for this OAuth client';
export const UNKNOWN_SCOPE_DESCRIPTION = 'Requested scope is not a recognized scope';
export const SCOPE_EXCEEDS_CLIENT_DESCRIPTION = "Requested scope exceeds the client's registered scopes";

export type AuthorizationScopeCheck =
  | { ok: true; scopes: string[] }
  /** scope_required: shown on the page (400); the other two: redirect with `error`. */
  | { ok: false; error: 'scope_required' | 'invalid_scope' | 'invalid_request'; description: string };

/**
 * `requested` is the output of `parseScopeParameter`. Legacy clients skip the "registered scopes"
 * check: the migration order (api-v2 "Versioning" 3) adds the scope parameter to the URL BEFORE
 * saving scopes in settings, so a legacy client may ask for scopes it has not registered yet.
 * A registered ORG_X also covers a request for TEAM_X (narrower than what was reviewed).
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
  if (!legacyClient && !requested.every(covered)) {
    return { ok: false, error: 'invalid_request', description: SCOPE_EXCEEDS_CLIENT_DESCRIPTION };
  }
  return { ok: true, scopes: [...requested] };
}
