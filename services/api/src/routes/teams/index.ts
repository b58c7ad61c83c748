import type { AnyRoute } from '../../routing/route.ts';
import { createOrgTeamRoute } from './create-org-team.ts';
import { createTeamRoute } from './create-team.ts';
import { getOrgTeamRoute } from './get-org-team.ts';
import { getTeamRoute } from './get-team.ts';
import { listOrgTeamsRoute } from './list-org-teams.ts';
import { listTeamsRoute } from './list-teams.ts';

export const teamRoutes: readonly AnyRoute[] = [
  createTeamRoute,
  listTeamsRoute,
  getTeamRoute,
  createOrgTeamRoute,
  listOrgTeamsRoute,
  getOrgTeamRoute,
];
