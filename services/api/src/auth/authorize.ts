import { type AccessFacts, findUserAccessFacts, loadAccessFacts } from '@sched/db/queries/access-facts';
import { ForbiddenError, InsufficientScopeError, NotFoundError } from '@sched/kit/errors';
import { type AccessRequirement, decideAccess } from '@sched/policy/access';
import { checkTokenScopes } from '@sched/policy/scopes';
import type { AccessContext, Caller, UserCaller } from '../routing/caller.ts';
import type { AnyRoute } from '../routing/route.ts';
import type { AccessControl } from './access-control.ts';
import { UNKNOWN_VERSION } from '@sched/kit/versioned-cache';
import type { Target } from './target.ts';

/**
 * What the credential may reach, before looking at the inputs: the token's scopes (403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope"`) and API-key-only routes.
 * Admin routes also need `requireServiceAdmin`.
 */
export function authorizeCredential(route: AnyRoute, caller: Caller | undefined): void {
  if (caller?.kind !== 'oauth' || route.auth === 'public') return;
  const check = checkTokenScopes({
    requiredScopes: route.scope,
    grantedScopes: caller.scopes,
    legacy: caller.legacy,
  });
  if (!check.allowed) throw new InsufficientScopeError(check.message, check.missing);
  if (route.auth === 'api-key' || route.auth === 'admin') {
    // Unreachable while such routes name no scope (the check above refuses every token then);
    // kept so that a scope declared on one by mistake cannot open it to OAuth tokens.
    throw new ForbiddenError('This endpoint requires an API key; OAuth access tokens are not accepted');
  }
}

/** The admin API: the caller's service-admin flag, read fresh from the database (never cached). */
export async function requireServiceAdmin(caller: Caller | undefined, control: AccessControl): Promise<void> {
  const user =
    caller && 'userId' in caller
      ? await findUserAccessFacts(control.deps.stores.db.knex, caller.userId)
      : null;
  if (!user?.serviceAdmin) throw new ForbiddenError('Only service administrators may use the admin API');
}

/**
 * Organization and team routes: 404 for an unknown organization or team (or a team of another
 * organization: no leak), then roles and PBAC through `decideAccess`. The facts come from the
 * per-process cache when their versions (read with the credential) still match; then the answer
 * is synchronous (no promise on the hot path, see `mount.ts`).
 */
export function authorizeAccess(
  route: AnyRoute,
  caller: UserCaller,
  target: Target,
  versions: ReadonlyMap<string, number>,
  control: AccessControl,
): AccessContext | Promise<AccessContext> {
  const requirement = mountRequirement(route);
  if (target.missing === 'organization') throw new NotFoundError('Organization not found');
  if (target.missing === 'team') throw new NotFoundError('Team not found');
  const tags = target.versionKeys.map((key) => versions.get(key) ?? UNKNOWN_VERSION);
  const cacheKey = `${caller.userId}:${target.orgId ?? ''}:${target.teamId ?? ''}`;
  const cached = control.facts.get(cacheKey, tags);
  if (cached !== undefined) {
    checkExists(requirement.level, target, cached);
    return decideOnCachedFacts(requirement, caller, cached);
  }
  return loadAccessFacts(control.deps.stores.db.knex, {
    userId: caller.userId,
    organizationId: target.orgId,
    teamId: target.teamId,
  }).then((facts) => {
    // Only facts that pass are cached; hits are checked again (one key serves both team route shapes).
    checkExists(requirement.level, target, facts);
    control.facts.set(cacheKey, facts, tags);
    return decide(requirement, caller, facts);
  });
}

/** One requirement object per route (decisions are kept per requirement object). */
const mountRequirements = new WeakMap<AnyRoute, AccessRequirement>();

/**
 * What the mount asks: the route's `access`, or for a route a member may use on their own
 * membership, the same with `ownMembershipRole` as the minimum (the handler asks the rest).
 */
function mountRequirement(route: AnyRoute): AccessRequirement {
  const access = route.access!;
  if (route.ownMembershipRole === undefined) return access;
  let lowered = mountRequirements.get(route);
  if (lowered === undefined) {
    lowered = Object.freeze({ ...access, minimumRole: route.ownMembershipRole });
    mountRequirements.set(route, lowered);
  }
  return lowered;
}

/**
 * Allowing decisions made on cached facts, by facts object, requirement (one per route) and the
 * caller's service-admin flag: everything `decide` reads. A cache hit returns the same facts object
 * until its versions change, and the decision (reason strings, permission pattern splits, the
 * context object) was rebuilt on every request; now once per facts. Denials are not kept (they
 * throw). Shared between requests, so frozen.
 */
const allowedOnFacts = [false, true].map(
  () => new WeakMap<AccessFacts, Map<AccessRequirement, AccessContext>>(),
);

function decideOnCachedFacts(
  requirement: AccessRequirement,
  caller: UserCaller,
  facts: AccessFacts,
): AccessContext {
  const byFacts = allowedOnFacts[caller.serviceAdmin ? 1 : 0]!;
  let byRequirement = byFacts.get(facts);
  const known = byRequirement?.get(requirement);
  if (known !== undefined) return known;
  const decided = Object.freeze(decide(requirement, caller, facts));
  if (byRequirement === undefined) {
    byRequirement = new Map();
    byFacts.set(facts, byRequirement);
  }
  byRequirement.set(requirement, decided);
  return decided;
}

function decide(requirement: AccessRequirement, caller: UserCaller, facts: AccessFacts): AccessContext {
  const team = facts.team;
  const teamInOrganization =
    requirement.level === 'team' &&
    team !== null &&
    team.organizationId !== null &&
    team.organizationId === facts.organization?.id;
  const decision = decideAccess({
    requirement,
    orgMembership: facts.orgMembership,
    teamMembership: facts.teamMembership,
    teamInOrganization,
    pbacEnabled: facts.organization?.pbacEnabled ?? false,
    serviceAdmin: caller.serviceAdmin,
  });
  if (!decision.allowed) throw new ForbiddenError(decision.reason);
  return {
    requirement,
    organization: facts.organization,
    team: requirement.level === 'team' ? team : null,
    orgMembership: facts.orgMembership,
    teamMembership: requirement.level === 'team' ? facts.teamMembership : null,
    decision,
  };
}

function checkExists(level: 'organization' | 'team', target: Target, facts: AccessFacts): void {
  if (level === 'organization') {
    if (!facts.organization) throw new NotFoundError('Organization not found');
    return;
  }
  if (target.pathOrgId !== null && !facts.organization) throw new NotFoundError('Organization not found');
  if (!facts.team || (target.pathOrgId !== null && facts.team.organizationId !== target.pathOrgId)) {
    throw new NotFoundError('Team not found');
  }
}
