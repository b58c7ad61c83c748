import { listTeamsOfUser } from '@sched/db/queries/teams';
import { z } from 'zod';
import { presentTeam, teamOutput } from '../../presenters/team.ts';
import { defineRoute } from '../../routing/route.ts';
import { pagination } from '../../routing/schemas.ts';

export const listTeamsRoute = defineRoute({
  method: 'GET',
  path: '/teams',
  summary: 'Teams the caller is an accepted member of',
  tags: ['Teams'],
  auth: 'user',
  mcp: { name: 'list_teams' },
  scope: 'TEAM_PROFILE_READ',
  query: pagination,
  response: { status: 200, description: 'Teams', schema: z.array(teamOutput) },
  handler: async ({ caller, deps, query }) => ({
    data: (await listTeamsOfUser(deps.stores.db.knex, caller.userId, query)).map(presentTeam),
  }),
});
