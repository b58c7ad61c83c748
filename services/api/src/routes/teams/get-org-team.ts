import { findTeamById } from '@sched/db/queries/teams';
import { NotFoundError } from '@sched/kit/errors';
import { z } from 'zod';
import { presentTeam, teamOutput } from '../../presenters/team.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';

export const getOrgTeamRoute = defineRoute({
  method: 'GET',
  path: '/organizations/:orgId/teams/:teamId',
  summary: 'One team of the organization',
  tags: ['Teams'],
  auth: 'user',
  scope: 'TEAM_PROFILE_READ',
  access: { level: 'team', minimumRole: 'MEMBER', permission: 'team.read' },
  params: z.strictObject({ orgId: idParam, teamId: idParam }),
  response: { status: 200, description: 'The team', schema: teamOutput },
  handler: async ({ deps, params }) => {
    const team = await findTeamById(deps.stores.db.knex, params.teamId);
    if (!team) throw new NotFoundError('Team not found');
    return { data: presentTeam(team) };
  },
});
