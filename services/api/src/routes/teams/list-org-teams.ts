import { listTeamsOfOrganization } from '@sched/db/queries/teams';
import { z } from 'zod';
import { presentTeam, teamOutput } from '../../presenters/team.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam, pagination } from '../../routing/schemas.ts';

export const listOrgTeamsRoute = defineRoute({
  method: 'GET',
  path: '/organizations/:orgId/teams',
  summary: "The organization's teams",
  tags: ['Teams'],
  auth: 'user',
  scope: 'ORG_PROFILE_READ',
  access: { level: 'organization', minimumRole: 'MEMBER', permission: 'team.read' },
  params: z.strictObject({ orgId: idParam }),
  query: pagination,
  response: { status: 200, description: 'Teams', schema: z.array(teamOutput) },
  handler: async ({ deps, params, query }) => ({
    data: (await listTeamsOfOrganization(deps.stores.db.knex, params.orgId, query)).map(presentTeam),
  }),
});
