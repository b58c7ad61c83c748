// Agent clients: AI agents and other clients that register themselves, by a Client ID Metadata
// Document (client_id is its https URL) or dynamic registration (docs/agents.md). Pure rules; the
// authorization server applies them.
import { SCOPES, USER_SCOPES } from './scopes.ts';

export type AgentClientPolicy = 'review' | 'approved-only' | 'off';
export type ClientRegistration = 'settings' | 'metadata_document' | 'dynamic';
export type ReviewState = 'PENDING' | 'APPROVED' | 'REJECTED';

/** A client_id that names a metadata document: an https URL (the library checks the finer rules). */
export const isDocumentClientId = (clientId: string): boolean => /^https:\/\//i.test(clientId);

export const isAgentRegistration = (registration: ClientRegistration): boolean => registration !== 'settings';

/**
 * Every scope an approved agent may be given: the 30 API scopes (no legacy, no OIDC ones: agents
 * use the API, not sign-in).
 */
export const APPROVED_AGENT_SCOPES: readonly string[] = SCOPES;

/**
 * What an agent may be given now: the pending ceiling (AGENT_PENDING_SCOPES) until an administrator
 * approves it, every API scope afterwards. A rejected agent may be given nothing.
 */
export function agentScopeCeiling(status: ReviewState, pendingScopes: readonly string[]): string[] {
  if (status === 'APPROVED') return [...APPROVED_AGENT_SCOPES];
  if (status === 'PENDING') return APPROVED_AGENT_SCOPES.filter((scope) => pendingScopes.includes(scope));
  return [];
}

/**
 * Narrows an agent's requested scopes to its ceiling: values outside the ceiling are left out
 * (the consent page says an unverified app gets read access only), unknown values are kept so the
 * usual `invalid_scope` answer still applies. An agent that names no scope asks for the read
 * scopes of the user's own resources within its ceiling.
 */
export function agentRequestedScopes(
  requested: readonly string[],
  ceiling: readonly string[],
  known: (scope: string) => boolean,
): { scopes: string[]; withheld: string[] } {
  if (requested.length === 0) {
    // The user's own read scopes: any account can grant those (team and organization ones need
    // memberships).
    const reads = USER_SCOPES.filter((scope) => scope.endsWith('_READ'));
    return {
      scopes: ceiling.filter((scope) => reads.includes(scope as (typeof reads)[number])),
      withheld: [],
    };
  }
  const scopes: string[] = [];
  const withheld: string[] = [];
  for (const scope of requested) {
    if (!known(scope) || ceiling.includes(scope)) scopes.push(scope);
    else withheld.push(scope);
  }
  return { scopes, withheld };
}

export type AgentUse = { ok: true } | { ok: false; reason: 'off' | 'pending' | 'rejected' };

/**
 * May the agent be used (authorize, token) in its review state under the policy? `review`: pending
 * agents may (within the ceiling), rejected ones may not; `approved-only`: only approved ones;
 * `off`: none.
 */
export function agentUsable(policy: AgentClientPolicy, status: ReviewState): AgentUse {
  if (policy === 'off') return { ok: false, reason: 'off' };
  if (status === 'REJECTED') return { ok: false, reason: 'rejected' };
  if (status === 'PENDING' && policy === 'approved-only') return { ok: false, reason: 'pending' };
  return { ok: true };
}

/** The review state an unknown agent starts in: approved when its document's host is trusted. */
export function initialAgentStatus(
  registration: ClientRegistration,
  clientId: string,
  trustedHosts: readonly string[],
): 'PENDING' | 'APPROVED' {
  if (registration !== 'metadata_document') return 'PENDING';
  const host = URL.parse(clientId)?.hostname.toLowerCase();
  return host !== undefined && trustedHosts.includes(host) ? 'APPROVED' : 'PENDING';
}

/** Loopback IP literals and `localhost`: a redirect there goes back to the user's own computer. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackRedirect(uri: string): boolean {
  const url = URL.parse(uri);
  return url !== null && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** An agent whose redirect URIs all go to the user's computer is a native app (RFC 8252). */
export const isNativeAgent = (redirectUris: readonly string[]): boolean =>
  redirectUris.length > 0 && redirectUris.every(isLoopbackRedirect);

/**
 * Has an administrator vouched for the client's redirect URIs? Clients registered in settings or
 * by API are reviewed before any use; an agent's URIs come from a document or registration anyone
 * can publish, and count only once the agent is approved.
 */
export const redirectUrisReviewed = (registration: ClientRegistration, status: ReviewState): boolean =>
  !isAgentRegistration(registration) || status === 'APPROVED';

/**
 * May an authorization error go back to `redirectUri` by itself, before the user has done
 * anything? Not for an agent no administrator has approved: an automatic error redirect would make
 * this server an open redirector for phishing (RFC 9700 4.11.2). A loopback redirect goes back to
 * the user's own computer and stays.
 */
export function errorRedirectAllowed(
  registration: ClientRegistration,
  status: ReviewState,
  redirectUri: string,
): boolean {
  return redirectUrisReviewed(registration, status) || isLoopbackRedirect(redirectUri);
}
