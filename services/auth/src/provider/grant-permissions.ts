import { findAcceptedMembershipRoles } from '@sched/db/queries/memberships';
import { INSUFFICIENT_PERMISSIONS_DESCRIPTION, scopesBeyondUser } from '@sched/policy/authorization-scopes';
import type { Knex } from 'knex';
import { scopeList } from './scopes.ts';

/** The requested scopes (`scope` parameter) that this user cannot grant; empty when all are fine. */
export async function scopesUserCannotGrant(knex: Knex, userId: number, scope: string): Promise<string[]> {
  const requested = scopeList(scope);
  if (!requested.some((value) => value.startsWith('ORG_') || value.startsWith('TEAM_'))) return [];
  return scopesBeyondUser(requested, await findAcceptedMembershipRoles(knex, userId));
}

/** The error the client receives (by redirect) when the user cannot grant what it asked for. */
export function insufficientPermissions(scopes: readonly string[]) {
  return {
    error: 'access_denied',
    error_description: `${INSUFFICIENT_PERMISSIONS_DESCRIPTION}: ${scopes.join(' ')}`,
  };
}
