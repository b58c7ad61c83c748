import { presentClients, presentOne } from '@sched/clients/present';
import { approve, listForReview, reject } from '@sched/clients/review';
import { rejectBody, reviewClientIdParams, reviewStatusQuery } from '@sched/clients/schemas';
import { z } from 'zod';
import { actorOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { pagination } from '../../routing/schemas.ts';
import { clientOutput } from './present.ts';
import { named } from '../../openapi/named.ts';

const TAGS = ['Admin'];

export const adminListClientsRoute = defineRoute({
  method: 'GET',
  path: '/admin/oauth-clients',
  summary: 'OAuth clients by review status (all when omitted), oldest first: the review queue',
  tags: TAGS,
  auth: 'admin',
  query: pagination.extend({ reviewStatus: reviewStatusQuery.optional() }),
  response: { status: 200, description: 'Clients', schema: z.array(clientOutput) },
  handler: async ({ caller, deps, query }) => {
    const clients = await listForReview(deps, caller, {
      ...(query.reviewStatus ? { status: query.reviewStatus } : {}),
      skip: query.skip,
      take: query.take,
    });
    return { data: await presentClients(deps.stores.db.knex, clients) };
  },
});

export const approveClientRoute = defineRoute({
  method: 'POST',
  path: '/admin/oauth-clients/:clientId/approve',
  summary: 'Approves a pending OAuth client and e-mails its owner',
  tags: TAGS,
  auth: 'admin',
  params: reviewClientIdParams,
  response: {
    status: 200,
    description: 'The approved client',
    schema: clientOutput,
    errors: { 409: 'Its review status does not allow this decision' },
  },
  handler: async ({ caller, deps, params, ctx }) => {
    const client = await approve(deps, actorOf(caller, ctx), params.clientId);
    return { data: await presentOne(deps.stores.db.knex, client) };
  },
});

export const rejectClientRoute = defineRoute({
  method: 'POST',
  path: '/admin/oauth-clients/:clientId/reject',
  summary: 'Rejects a pending OAuth client with a reason and e-mails its owner',
  tags: TAGS,
  auth: 'admin',
  params: reviewClientIdParams,
  body: named('RejectOAuthClientRequest', rejectBody, {
    reason: 'The redirect URI does not belong to the website',
  }),
  response: {
    status: 200,
    description: 'The rejected client',
    schema: clientOutput,
    errors: { 409: 'Its review status does not allow this decision' },
  },
  handler: async ({ caller, deps, params, body, ctx }) => {
    const client = await reject(deps, actorOf(caller, ctx), params.clientId, body.reason);
    return { data: await presentOne(deps.stores.db.knex, client) };
  },
});
