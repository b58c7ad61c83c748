import { accessVersionKey } from '@sched/db/queries/access-facts';
import { findMembership, type Membership } from '@sched/db/queries/memberships';
import { NotFoundError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';
import type { RouteCache } from '../../cache/route-cache.ts';
import { UNKNOWN_VERSION } from '@sched/kit/versioned-cache';
import type { AccessContext } from '../../routing/caller.ts';
import { parentOf, teamInOrganization } from './context.ts';

export const MEMBERSHIP_NOT_FOUND = 'Membership not found';

export async function getMembership(
  deps: Runtime,
  access: AccessContext,
  membershipId: number,
): Promise<Membership> {
  const membership = await findMembership(deps.stores.db.knex, parentOf(access), membershipId);
  if (!membership) throw new NotFoundError(MEMBERSHIP_NOT_FOUND);
  return membership;
}

/** Per-app caches of GET one membership: the membership, and which user each membership is of. */
const MEMBERSHIPS = 'memberships';
const MEMBERSHIP_USERS = 'membership-users';
/** Shorter than the default safety net: the member's profile may be changed by writers that do not bump `user:<id>`. */
const MEMBERSHIP_MAX_AGE_MS = 60_000;

/** The member's `user:<id>` (known once the membership was read), to read with the credential. */
export function membershipVersionKeys(
  params: Record<string, string | undefined>,
  cache: RouteCache,
): string[] {
  const userId = cache.permanent<number>(MEMBERSHIP_USERS).get(params['membershipId'] ?? '');
  return userId === undefined ? [] : [accessVersionKey.user(userId)];
}

/** Options of the memberships cache: one object, not a literal per request. */
const MEMBERSHIPS_OPTIONS = { maxAgeMs: MEMBERSHIP_MAX_AGE_MS };

/**
 * The entry's tags: the versions of the memberships of the route's parent (its own, and for an
 * org team the org's), then the member's. One array per request, the one the cache compares.
 */
function membershipTags(
  access: AccessContext,
  versions: ReadonlyMap<string, number>,
  userTag: number,
): number[] {
  const tag = (key: string) => versions.get(key) ?? UNKNOWN_VERSION;
  if (access.requirement.level === 'organization')
    return [tag(accessVersionKey.org(access.organization!.id)), userTag];
  const teamTag = tag(accessVersionKey.team(access.team!.id));
  if (!teamInOrganization(access)) return [teamTag, userTag];
  return [teamTag, tag(accessVersionKey.org(access.team!.organizationId!)), userTag];
}

/**
 * GET one membership, served from the per-app cache while the versions of its parent (team and
 * organization) and of the member (`user:<id>`, for the profile shown) are unchanged. A hit is
 * answered synchronously. (An invitation to an address has no user: only the parent's versions.)
 */
export function getMembershipCached(
  deps: Runtime,
  access: AccessContext,
  membershipId: number,
  versions: ReadonlyMap<string, number>,
  cache: RouteCache,
): Membership | Promise<Membership> {
  const users = cache.permanent<number>(MEMBERSHIP_USERS);
  const memberships = cache.versioned<Membership>(MEMBERSHIPS, MEMBERSHIPS_OPTIONS);
  const knownUserId = users.get(String(membershipId));
  const userTag =
    knownUserId === undefined
      ? UNKNOWN_VERSION
      : (versions.get(accessVersionKey.user(knownUserId)) ?? UNKNOWN_VERSION);
  const tags = membershipTags(access, versions, userTag);
  const parent = parentOf(access);
  const key = `${parent.kind}:${parent.id}:${membershipId}`;
  const hit = memberships.get(key, tags);
  if (hit) return hit;
  return getMembership(deps, access, membershipId).then((membership) => {
    if (membership.userId !== null) users.set(String(membershipId), membership.userId);
    // The member's tag counts only if it was read for this membership's member.
    if (membership.userId === null || membership.userId !== knownUserId)
      tags[tags.length - 1] = UNKNOWN_VERSION;
    memberships.set(key, membership, tags);
    return membership;
  });
}
