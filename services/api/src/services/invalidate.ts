import { accessVersionKey } from '@sched/db/queries/access-facts';
import type { Runtime } from '@sched/runtime/runtime';

/**
 * Bumps invalidation versions after a committed change, so every API process drops the cached
 * facts on its very next request (the versions are read with the credential). See
 * `accessVersionKey` in @sched/db/queries/access-facts for what each key covers.
 */
export async function invalidate(deps: Runtime, keys: readonly string[]): Promise<void> {
  await Promise.all(keys.map((key) => deps.stores.tokenStore.bumpVersion(key)));
}

export const invalidateOrganization = (deps: Runtime, organizationId: number) =>
  invalidate(deps, [accessVersionKey.org(organizationId)]);

export const invalidateTeam = (deps: Runtime, teamId: number) =>
  invalidate(deps, [accessVersionKey.team(teamId)]);

export const invalidateUser = (deps: Runtime, userId: number) =>
  invalidate(deps, [accessVersionKey.user(userId)]);
