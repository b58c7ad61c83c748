import { findConsentedScopes } from '@sched/db/queries/consents';
import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import { agentScopeCeiling, isAgentRegistration } from '@sched/policy/agent-clients';
import type { Knex } from 'knex';
import { scopesUserCannotGrant } from './grant-permissions.ts';
import { requestedResources } from './resources.ts';
import { providerScopeParameter, scopeList } from './scopes.ts';

export interface StepUpRequest {
  userId: number;
  clientId: string;
  /** What the client may be given now (the ceiling): `grantableScopes`. */
  clientScopes: readonly string[];
  /** The authorization request's parameters (`scope`, `resource`). */
  params: Record<string, unknown>;
}

/**
 * Step-up (docs/mcp.md "Scopes and step-up"): an authorization that names a resource (MCP clients
 * and other agents always do) asks for what the current call needs, and its token carries the
 * scopes the user allowed this client before as well as the new ones. Returns the widened `scope`
 * parameter, or the request's own when nothing is added or no resource is named. Only scopes still
 * registered on the client and still grantable by the user are carried over.
 */
export async function accumulatedScope(knex: Knex, request: StepUpRequest): Promise<string> {
  const requested = typeof request.params['scope'] === 'string' ? request.params['scope'] : '';
  if (requestedResources(request.params).length === 0) return requested;
  const earlier = (await findConsentedScopes(knex, request.userId, request.clientId)) ?? [];
  const registered = new Set(request.clientScopes);
  const wanted = scopeList(requested);
  const added = earlier.filter((scope) => registered.has(scope) && !wanted.includes(scope));
  if (added.length === 0) return requested;
  const beyond = new Set(await scopesUserCannotGrant(knex, request.userId, added.join(' ')));
  const carried = added.filter((scope) => !beyond.has(scope));
  return carried.length === 0 ? requested : providerScopeParameter([...wanted, ...carried]);
}

/**
 * The scopes a client may be given now: those registered on it, or for an agent its review
 * ceiling (AGENT_PENDING_SCOPES while it is pending, a suspended agent included). Earlier consent
 * is carried over only within it: what a user allowed an agent while it was approved is not
 * handed out again once it is back in review.
 */
export function grantableScopes(
  client: Pick<OAuthClient, 'registration' | 'reviewStatus' | 'scopes'>,
  pendingScopes: readonly string[],
): readonly string[] {
  if (!isAgentRegistration(client.registration)) return client.scopes;
  return agentScopeCeiling(client.reviewStatus, pendingScopes);
}
