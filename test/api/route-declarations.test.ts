import { buildOpenApiDocument, openApiPath } from '@sched/api/openapi/document';
import { routes } from '@sched/api/routes/index';
import { isScope } from '@sched/policy/scopes';
import test from 'ava';

/**
 * The declarations every route of the API makes (scheduling's too), checked once for all: scope
 * enforcement (team scopes cover /v2/teams/:teamId/... and
 * /v2/organizations/:orgId/teams/:teamId/...; organization scopes the rest of
 * /v2/organizations/:orgId/...), and organization / team paths always declare their access.
 */

const targetsTeam = (path: string) =>
  /^\/teams\/:teamId(\/|$)/.test(path) || /^\/organizations\/:orgId\/teams\/:teamId(\/|$)/.test(path);
const targetsOrganization = (path: string) =>
  /^\/organizations\/:orgId(\/|$)/.test(path) && !targetsTeam(path);
const scopesOf = (scope: unknown): string[] =>
  scope == null ? [] : typeof scope === 'string' ? [scope] : [...(scope as string[])];

test('each method and path is declared once', (t) => {
  const keys = routes.map((route) => `${route.method} ${route.path}`);
  t.deepEqual(
    keys.filter((key, i) => keys.indexOf(key) !== i),
    [],
  );
});

test('team paths declare TEAM_ scopes and team access; organization paths ORG_ scopes and organization access', (t) => {
  const problems: string[] = [];
  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    const scopes = scopesOf(route.scope);
    for (const scope of scopes) if (!isScope(scope)) problems.push(`${name}: unknown scope ${scope}`);
    if (targetsTeam(route.path)) {
      if (route.access?.level !== 'team') problems.push(`${name}: needs team access`);
      for (const scope of scopes)
        if (!scope.startsWith('TEAM_')) problems.push(`${name}: ${scope} is not a TEAM_ scope`);
    } else if (targetsOrganization(route.path)) {
      if (route.access?.level !== 'organization') problems.push(`${name}: needs organization access`);
      for (const scope of scopes)
        if (!scope.startsWith('ORG_')) problems.push(`${name}: ${scope} is not an ORG_ scope`);
    } else if (route.access) {
      problems.push(`${name}: access declared on a path that names no organization or team`);
    }
  }
  t.deepEqual(problems, []);
});

test('the OpenAPI document has an operation for every declared route', (t) => {
  const document = buildOpenApiDocument(routes, { appUrl: 'http://app', baseUrl: 'http://api' });
  for (const route of routes) {
    t.truthy(
      document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()],
      `${route.method} ${route.path}`,
    );
  }
});
