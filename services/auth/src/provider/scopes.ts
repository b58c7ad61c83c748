import { KNOWN_SCOPES } from '@sched/policy/scopes';

/**
 * oidc-provider refuses to complete an authorization that grants no scope at all, but a legacy
 * client may ask for none (its token carries the scopes it asked for, possibly none).
 * Such a request carries this internal value through the provider instead; it is removed from
 * everything anyone sees: the token response, the access-token record the resource API reads, the
 * consent page and the metadata document.
 */
export const NO_SCOPE_MARKER = 'internal:no-scope';

/** Every scope value oidc-provider recognises: the catalogue plus the marker. */
export const PROVIDER_SCOPES: readonly string[] = [...KNOWN_SCOPES, NO_SCOPE_MARKER];

/** The `scope` parameter handed to oidc-provider for validated, requested scopes. */
export const providerScopeParameter = (scopes: readonly string[]): string =>
  scopes.length > 0 ? scopes.join(' ') : NO_SCOPE_MARKER;

/** Space-separated scopes without the marker (what clients and users see). */
export function withoutInternalScopes(scope: string | undefined): string {
  if (!scope) return '';
  return scope
    .split(' ')
    .filter((value) => value !== '' && value !== NO_SCOPE_MARKER)
    .join(' ');
}

/** The scopes of a provider `scope` string as a list, marker removed. */
export const scopeList = (scope: string | undefined): string[] => {
  const visible = withoutInternalScopes(scope);
  return visible === '' ? [] : visible.split(' ');
};
