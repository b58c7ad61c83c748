import { createTeam } from '@sched/db/queries/teams';
import { z } from 'zod';
import { presentTeam, teamOutput } from '../../presenters/team.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { idParam } from '../../routing/schemas.ts';
import { newTeamBody, teamSlug } from './team-input.ts';

export const createOrgTeamRoute = defineRoute({
  method: 'POST',
  path: '/organizations/:orgId/teams',
  summary: 'Creates a team in the organization, with the caller as its OWNER',
  tags: ['Teams'],
  auth: 'user',
  scope: 'ORG_PROFILE_WRITE',
  access: { level: 'organization', minimumRole: 'ADMIN', permission: 'team.create' },
  params: z.strictObject({ orgId: idParam }),
  body: newTeamBody,
  response: {
    status: 201,
    description: 'The team',
    schema: teamOutput,
    errors: { 409: 'A team with this slug already exists' },
  },
  handler: async ({ caller, deps, params, body, ctx }) => {
    const team = await createTeam(
      deps.stores.db.knex,
      deps.stores.tokenStore,
      {
        name: body.name,
        slug: teamSlug(body),
        organizationId: params.orgId,
        ownerUserId: caller.userId,
      },
      auditContextOf(caller, ctx),
    );
    return { status: 201, data: presentTeam(team) };
  },
});
