import {
  deferredBumper,
  listClientsByReviewStatus,
  lockOAuthClient,
} from '@sched/db/queries/oauth-client-management';
import { setReviewStatus } from '@sched/db/queries/oauth-clients';
import { ConflictError, NotFoundError } from '@sched/kit/errors';
import { approveClient, rejectClient } from '@sched/policy/client-review';
import { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import { pagination } from '../../routing/schemas.ts';
import { clientOutput } from './present.ts';
import { clientIdParams, rejectBody, reviewStatusQuery } from './schemas.ts';
import {
  audit,
  CLIENT_NOT_FOUND,
  presentClients,
  presentOne,
  queueReviewMail,
  sendQueued,
} from './service.ts';

const TAGS = ['Admin'];

export const adminListClientsRoute = defineRoute({
  method: 'GET',
  path: '/admin/oauth-clients',
  summary: 'OAuth clients by review status (all when omitted), oldest first: the review queue',
  tags: TAGS,
  auth: 'admin',
  query: pagination.extend({ reviewStatus: reviewStatusQuery.optional() }),
  response: { status: 200, description: 'Clients', schema: z.array(clientOutput) },
  handler: async ({ deps, query }) => {
    const knex = deps.stores.db.knex;
    const clients = await listClientsByReviewStatus(knex, {
      ...(query.reviewStatus ? { status: query.reviewStatus } : {}),
      skip: query.skip,
      take: query.take,
    });
    return { data: await presentClients(knex, clients) };
  },
});

export const approveClientRoute = defineRoute({
  method: 'POST',
  path: '/admin/oauth-clients/:clientId/approve',
  summary: 'Approves a pending OAuth client and e-mails its owner',
  tags: TAGS,
  auth: 'admin',
  params: clientIdParams,
  response: { status: 200, description: 'The approved client', schema: clientOutput },
  handler: async ({ caller, deps, params }) => {
    const knex = deps.stores.db.knex;
    const bumper = deferredBumper();
    const { client, mail } = await knex.transaction(async (trx) => {
      const current = await lockOAuthClient(trx, params.clientId);
      if (!current) throw new NotFoundError(CLIENT_NOT_FOUND);
      const decision = approveClient(current.reviewStatus);
      if (!decision.ok) throw new ConflictError(decision.reason);
      const approved = await setReviewStatus(trx, bumper, current.id, decision.status, {
        reviewedByUserId: caller.userId,
      });
      await audit(trx, caller.userId, 'oauth_client.approved', current.id, {
        from: current.reviewStatus,
        to: decision.status,
      });
      const queued = await queueReviewMail(trx, deps, approved!, { kind: 'approved' });
      return { client: approved!, mail: queued };
    });
    await bumper.flush(deps.stores.tokenStore);
    await sendQueued(deps, mail);
    return { data: await presentOne(knex, client) };
  },
});

export const rejectClientRoute = defineRoute({
  method: 'POST',
  path: '/admin/oauth-clients/:clientId/reject',
  summary: 'Rejects a pending OAuth client with a reason and e-mails its owner',
  tags: TAGS,
  auth: 'admin',
  params: clientIdParams,
  body: rejectBody,
  response: { status: 200, description: 'The rejected client', schema: clientOutput },
  handler: async ({ caller, deps, params, body }) => {
    const knex = deps.stores.db.knex;
    const bumper = deferredBumper();
    const { client, mail } = await knex.transaction(async (trx) => {
      const current = await lockOAuthClient(trx, params.clientId);
      if (!current) throw new NotFoundError(CLIENT_NOT_FOUND);
      const decision = rejectClient(current.reviewStatus, body.reason);
      if (!decision.ok) throw new ConflictError(decision.reason);
      const rejected = await setReviewStatus(trx, bumper, current.id, decision.status, {
        rejectionReason: decision.rejectionReason,
        reviewedByUserId: caller.userId,
      });
      await audit(trx, caller.userId, 'oauth_client.rejected', current.id, {
        from: current.reviewStatus,
        to: decision.status,
        reason: decision.rejectionReason,
      });
      const queued = await queueReviewMail(trx, deps, rejected!, {
        kind: 'rejected',
        reason: decision.rejectionReason,
      });
      return { client: rejected!, mail: queued };
    });
    await bumper.flush(deps.stores.tokenStore);
    await sendQueued(deps, mail);
    return { data: await presentOne(knex, client) };
  },
});
