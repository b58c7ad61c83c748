import { createTeam } from '@sched/db/queries/teams';
import { presentTeam, teamOutput } from '../../presenters/team.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { newTeamBody, teamSlug } from './team-input.ts';

export const createTeamRoute = defineRoute({
  method: 'POST',
  path: '/teams',
  summary: 'Creates a team outside any organization, with the caller as its OWNER',
  tags: ['Teams'],
  auth: 'user',
  scope: 'TEAM_PROFILE_WRITE',
  body: newTeamBody,
  response: {
    status: 201,
    description: 'The team',
    schema: teamOutput,
    errors: { 409: 'A team with this slug already exists' },
  },
  handler: async ({ caller, deps, body, ctx }) => {
    const team = await createTeam(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      {
        name: body.name,
        slug: teamSlug(body),
        organizationId: null,
        ownerUserId: caller.userId,
      },
      auditContextOf(caller, ctx),
    );
    return { status: 201, data: presentTeam(team) };
  },
});
