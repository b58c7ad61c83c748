import { accessVersionKey } from '@sched/db/queries/access-facts';
import type { MembershipParent } from '@sched/db/queries/memberships';
import type { Runtime } from '@sched/runtime/runtime';

/**
 * After a committed change of an organization's or team's memberships: bumps its version, so every
 * API process drops the cached access facts and membership reads on its next request.
 */
export async function membershipsChanged(
  deps: Pick<Runtime, 'stores'>,
  parent: MembershipParent,
): Promise<void> {
  const key =
    parent.kind === 'organization' ? accessVersionKey.org(parent.id) : accessVersionKey.team(parent.id);
  await deps.stores.tokenStore.bumpVersion(key);
}
