import { type AccessFacts, findUserAccessFacts, loadAccessFacts } from '@sched/db/queries/access-facts';
import { ForbiddenError, InsufficientScopeError, NotFoundError } from '@sched/kit/errors';
import { decideAccess } from '@sched/policy/access';
import { checkTokenScopes } from '@sched/policy/scopes';
import type { AccessContext, Caller, UserCaller } from '../routing/caller.ts';
import type { AnyRoute } from '../routing/route.ts';
import type { AccessControl } from './access-control.ts';
import { UNKNOWN_VERSION } from './cache.ts';
import type { Target } from './target.ts';

/**
 * What the credential may reach, before looking at the inputs: the token's scopes (contract §3
 * messages, `WWW-Authenticate: Bearer error="insufficient_scope"`), API-key-only routes, and the
 * service-admin flag of admin routes (read fresh, never from a cache).
 */
export async function authorizeCredential(
  route: AnyRoute,
  caller: Caller | undefined,
  control: AccessControl,
): Promise<void> {
  if (caller?.kind === 'oauth' && route.auth !== 'public') {
    const check = checkTokenScopes({
      requiredScopes: route.scope,
      grantedScopes: caller.scopes,
      legacy: caller.legacy,
    });
    if (!check.allowed) throw new InsufficientScopeError(check.message);
    if (route.auth === 'api-key' || route.auth === 'admin') {
      // Unreachable while such routes name no scope (the check above refuses every token then);
      // kept so that a scope declared on one by mistake cannot open it to OAuth tokens.
      throw new ForbiddenError('This endpoint requires an API key; OAuth access tokens are not accepted');
    }
  }
  if (route.auth === 'admin') {
    const user =
      caller && 'userId' in caller
        ? await findUserAccessFacts(control.deps.stores.db.knex, caller.userId)
        : null;
    if (!user?.serviceAdmin) throw new ForbiddenError('Only service administrators may use the admin API');
  }
}

/**
 * Organization and team routes: 404 for an unknown organization or team (or a team of another
 * organization: no leak), then roles and PBAC through `decideAccess`. The facts come from the
 * per-process cache when their versions (read with the credential) still match.
 */
export async function authorizeAccess(
  route: AnyRoute,
  caller: UserCaller,
  target: Target,
  versions: ReadonlyMap<string, number>,
  control: AccessControl,
): Promise<AccessContext> {
  const requirement = route.access!;
  if (target.missing === 'organization') throw new NotFoundError('Organization not found');
  if (target.missing === 'team') throw new NotFoundError('Team not found');
  const tags = target.versionKeys.map((key) => versions.get(key) ?? UNKNOWN_VERSION);
  const cacheKey = `${caller.userId}:${target.orgId ?? ''}:${target.teamId ?? ''}`;
  let facts = control.facts.get(cacheKey, tags);
  if (facts === undefined) {
    facts = await loadAccessFacts(control.deps.stores.db.knex, {
      userId: caller.userId,
      organizationId: target.orgId,
      teamId: target.teamId,
    });
    checkExists(requirement.level, target, facts);
    control.facts.set(cacheKey, facts, tags);
  } else {
    checkExists(requirement.level, target, facts);
  }
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
