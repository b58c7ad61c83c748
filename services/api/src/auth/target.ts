import { accessVersionKey, findTeamOrganizationId } from '@sched/db/queries/access-facts';
import type { AnyRoute } from '../routing/route.ts';
import type { AccessControl } from './access-control.ts';

/**
 * The organization / team an access-controlled route targets, read from the raw path parameters
 * before authentication so that the version keys of its cached facts can be read in the same
 * token-store round trip as the credential.
 */
export interface Target {
  /** Organization whose membership counts: the path's, or (team routes) the team's. */
  orgId: number | null;
  teamId: number | null;
  /** The `:orgId` of the path, when it has one (a team must belong to it). */
  pathOrgId: number | null;
  /** Nothing to find: a malformed id, or a `/teams/:teamId` whose team does not exist. */
  missing: 'organization' | 'team' | null;
  versionKeys: string[];
}

export interface TargetPlan {
  level: 'organization' | 'team';
  hasOrgParam: boolean;
}

const ID = /^[1-9]\d{0,14}$/;
const parseId = (value: string | undefined): number | null =>
  value !== undefined && ID.test(value) ? Number(value) : null;

/** Checks the declaration once, at mount: access needs the path to name what it guards. */
export function planTarget(route: AnyRoute): TargetPlan | null {
  if (!route.access) return null;
  const names = new Set([...route.path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]));
  const level = route.access.level;
  if (level === 'organization' && !names.has('orgId')) {
    throw new Error(`${route.method} ${route.path}: organization access needs an :orgId path parameter`);
  }
  if (level === 'team' && !names.has('teamId')) {
    throw new Error(`${route.method} ${route.path}: team access needs a :teamId path parameter`);
  }
  if (route.auth !== 'user') {
    throw new Error(`${route.method} ${route.path}: access rules need auth 'user'`);
  }
  return { level, hasOrgParam: names.has('orgId') };
}

/**
 * Synchronous unless a `/teams/:teamId` route meets a team whose organization this process has
 * not looked up yet: the hot path answers without a promise (see `mount.ts`).
 */
export function resolveTarget(
  plan: TargetPlan,
  params: Record<string, string | undefined>,
  control: AccessControl,
): Target | Promise<Target> {
  const pathOrgId = plan.hasOrgParam ? parseId(params['orgId']) : null;
  if (plan.level === 'organization') {
    if (pathOrgId === null) return missing('organization');
    return {
      orgId: pathOrgId,
      teamId: null,
      pathOrgId,
      missing: null,
      versionKeys: [accessVersionKey.org(pathOrgId)],
    };
  }
  const teamId = parseId(params['teamId']);
  if (teamId === null || (plan.hasOrgParam && pathOrgId === null)) return missing('team');
  // The path names the organization; whether the team really belongs to it is checked on the facts.
  if (plan.hasOrgParam) return teamTarget(teamId, pathOrgId, pathOrgId);
  const known = control.teamOrganizations.get(String(teamId));
  if (known !== undefined) return teamTarget(teamId, known, null);
  return findTeamOrganizationId(control.deps.stores.db.knex, teamId).then((found) => {
    if (found === undefined) return missing('team');
    control.teamOrganizations.set(String(teamId), found);
    return teamTarget(teamId, found, null);
  });
}

function teamTarget(teamId: number, orgId: number | null, pathOrgId: number | null): Target {
  const versionKeys = [accessVersionKey.team(teamId)];
  if (orgId !== null) versionKeys.push(accessVersionKey.org(orgId));
  return { orgId, teamId, pathOrgId, missing: null, versionKeys };
}

const missing = (what: 'organization' | 'team'): Target => ({
  orgId: null,
  teamId: null,
  pathOrgId: null,
  missing: what,
  versionKeys: [],
});
