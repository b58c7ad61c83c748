import { revokeClientTokens } from '@sched/clients/connected-apps';
import { clientIdParams } from '@sched/clients/schemas';
import { revokedTokensOutput } from '../../presenters/connected-app.ts';
import { actorOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';

export const revokeClientTokensRoute = defineRoute({
  method: 'POST',
  path: '/oauth-clients/:clientId/revoke-tokens',
  summary: 'Ends every access and refresh token of the client, of every user (after a leak)',
  description:
    'Allowed to its owner, an admin or owner of its organization, or a service administrator ' +
    '(404 for who cannot see the client, 403 for an organization member who can only see it). ' +
    'Effective on the next request in every process; remembered consents stay.',
  tags: ['OAuth clients'],
  auth: 'api-key',
  params: clientIdParams,
  response: { status: 200, description: 'How many tokens were ended', schema: revokedTokensOutput },
  handler: async ({ caller, deps, params, ctx }) => ({
    data: { revoked: await revokeClientTokens(deps, actorOf(caller, ctx), params.clientId) },
  }),
});
