import {
  acceptedOrganizationRole,
  deferredBumper,
  deleteOAuthClient,
  listClientsVisibleTo,
  lockOAuthClient,
  newestSecretHints,
  organizationExists,
  updateClientSettings,
} from '@sched/db/queries/oauth-client-management';
import {
  bumpClientVersion,
  createOAuthClient,
  type OAuthClient,
  type OAuthClientPatch,
  setReviewStatus,
  updateOAuthClient,
} from '@sched/db/queries/oauth-clients';
import { BadRequestError, ForbiddenError, NotFoundError } from '@sched/kit/errors';
import {
  type ClientReviewFields,
  reviewStatusAfterUpdate,
  reviewStatusAtCreation,
} from '@sched/policy/client-review';
import { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import { clientOutput, presentClient } from './present.ts';
import { clientIdParams, createClientBody, updateClientBody } from './schemas.ts';
import {
  audit,
  CLIENT_NOT_FOUND,
  clientFor,
  presentClients,
  presentOne,
  type QueuedMail,
  queueReviewMail,
  sendQueued,
} from './service.ts';

const TAGS = ['OAuth clients'];

export const createClientRoute = defineRoute({
  method: 'POST',
  path: '/oauth-clients',
  summary: 'Registers an OAuth client (PENDING until a service administrator approves it)',
  description:
    'Confidential clients get their first secret in `secret`, in plain text, in this response only.',
  tags: TAGS,
  auth: 'api-key',
  body: createClientBody,
  response: { status: 201, description: 'The new client', schema: clientOutput },
  handler: async ({ caller, deps, body }) => {
    const knex = deps.stores.db.knex;
    const review = reviewStatusAtCreation(body.scopes);
    if (!review.ok)
      throw new BadRequestError(review.reason, [{ field: 'body.scopes', message: review.reason }]);
    if (body.organizationId !== undefined) {
      if (!(await organizationExists(knex, body.organizationId)))
        throw new NotFoundError('Organization not found');
      const role = await acceptedOrganizationRole(knex, caller.userId, body.organizationId);
      if (!caller.serviceAdmin && role !== 'OWNER' && role !== 'ADMIN')
        throw new ForbiddenError('Only an admin or owner of the organization may register a client for it');
    }
    const bumper = deferredBumper();
    const { client, secret } = await knex.transaction(async (trx) => {
      const created = await createOAuthClient(trx, {
        ownerUserId: caller.userId,
        name: body.name,
        redirectUris: body.redirectUris,
        scopes: body.scopes,
        clientType: body.clientType ?? 'confidential',
        organizationId: body.organizationId ?? null,
        logo: body.logo ?? null,
        websiteUrl: body.websiteUrl ?? null,
        purpose: body.purpose ?? null,
        reviewStatus: review.status,
      });
      await updateClientSettings(trx, bumper, created.client.id, body);
      await audit(trx, caller.userId, 'oauth_client.created', created.client.id, {
        reviewStatus: review.status,
        scopes: body.scopes,
        clientType: created.client.clientType,
      });
      const reloaded = await lockOAuthClient(trx, created.client.id);
      return { client: reloaded ?? created.client, secret: created.secret };
    });
    await bumpClientVersion(deps.stores.tokenStore, client.id);
    return {
      status: 201,
      data: { ...presentClient(client, secret?.hint), secret: secret ? secret.plain : null },
    };
  },
});

export const listClientsRoute = defineRoute({
  method: 'GET',
  path: '/oauth-clients',
  summary: "The caller's OAuth clients and those of their organizations, newest first",
  tags: TAGS,
  auth: 'api-key',
  response: { status: 200, description: 'Clients', schema: z.array(clientOutput) },
  handler: async ({ caller, deps }) => {
    const knex = deps.stores.db.knex;
    return { data: await presentClients(knex, await listClientsVisibleTo(knex, caller.userId)) };
  },
});

export const getClientRoute = defineRoute({
  method: 'GET',
  path: '/oauth-clients/:clientId',
  summary: 'One OAuth client',
  tags: TAGS,
  auth: 'api-key',
  params: clientIdParams,
  response: { status: 200, description: 'The client', schema: clientOutput },
  handler: async ({ caller, deps, params }) => {
    const client = await clientFor(deps, caller, params.clientId, 'view');
    return { data: await presentOne(deps.stores.db.knex, client) };
  },
});

const reviewFields = (client: OAuthClient): ClientReviewFields => ({
  name: client.name,
  logo: client.logo,
  websiteUrl: client.websiteUrl,
  redirectUris: client.redirectUris,
  purpose: client.purpose,
  scopes: client.scopes,
});

export const updateClientRoute = defineRoute({
  method: 'PATCH',
  path: '/oauth-clients/:clientId',
  summary: 'Changes an OAuth client; reviewed fields send an approved client back to review',
  description:
    'Name, logo, website URL, redirect URIs, purpose and scope changes follow the review table of ' +
    'api-v2.md (APPROVED -> PENDING); editing a REJECTED client resubmits it (-> PENDING). Flags and ' +
    'booking redirects never change the review status.',
  tags: TAGS,
  auth: 'api-key',
  params: clientIdParams,
  body: updateClientBody,
  response: { status: 200, description: 'The updated client', schema: clientOutput },
  handler: async ({ caller, deps, params, body }) => {
    const knex = deps.stores.db.knex;
    await clientFor(deps, caller, params.clientId, 'manage');
    const bumper = deferredBumper();
    const { client, mail } = await knex.transaction(async (trx) => {
      const before = await lockOAuthClient(trx, params.clientId);
      if (!before) throw new NotFoundError(CLIENT_NOT_FOUND);
      const patch: OAuthClientPatch = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.logo !== undefined) patch.logo = body.logo;
      if (body.websiteUrl !== undefined) patch.websiteUrl = body.websiteUrl;
      if (body.purpose !== undefined) patch.purpose = body.purpose;
      if (body.redirectUris !== undefined) patch.redirectUris = body.redirectUris;
      if (body.scopes !== undefined) patch.scopes = body.scopes;
      const after: ClientReviewFields = { ...reviewFields(before), ...patch };
      const result = reviewStatusAfterUpdate({
        status: before.reviewStatus,
        legacy: before.isLegacy,
        before: reviewFields(before),
        after,
      });
      if (!result.ok)
        throw new BadRequestError(result.reason, [{ field: 'body.scopes', message: result.reason }]);
      await updateOAuthClient(trx, bumper, before.id, patch);
      const settingsChanged = await updateClientSettings(trx, bumper, before.id, body);
      if (result.status !== before.reviewStatus) await setReviewStatus(trx, bumper, before.id, result.status);
      let queued: QueuedMail | null = null;
      if (result.reasons.length > 0 || settingsChanged) {
        await audit(trx, caller.userId, 'oauth_client.updated', before.id, {
          fields: Object.keys(body),
          changes: result.reasons,
          statusFrom: before.reviewStatus,
          statusTo: result.status,
          leftLegacy: result.leftLegacy,
        });
      }
      if (result.status !== before.reviewStatus) {
        await audit(trx, caller.userId, 'oauth_client.review_status_changed', before.id, {
          from: before.reviewStatus,
          to: result.status,
          reasons: result.reasons,
        });
      }
      const updated = (await lockOAuthClient(trx, before.id))!;
      // The owner learns that an approved client stopped working until it is approved again.
      if (before.reviewStatus === 'APPROVED' && updated.reviewStatus === 'PENDING')
        queued = await queueReviewMail(trx, deps, updated, { kind: 're-review', changes: result.reasons });
      return { client: updated, mail: queued };
    });
    await bumper.flush(deps.stores.tokenStore);
    await sendQueued(deps, mail);
    return { data: await presentOne(knex, client) };
  },
});

export const deleteClientRoute = defineRoute({
  method: 'DELETE',
  path: '/oauth-clients/:clientId',
  summary: 'Deletes an OAuth client with its secrets, consents and managed users',
  description:
    'Allowed to its owner, an admin or owner of its organization, or a service administrator. ' +
    'Returns the deleted client; `secret` is the masked hint.',
  tags: TAGS,
  auth: 'api-key',
  params: clientIdParams,
  response: { status: 200, description: 'The deleted client', schema: clientOutput },
  handler: async ({ caller, deps, params }) => {
    const knex = deps.stores.db.knex;
    await clientFor(deps, caller, params.clientId, 'manage');
    const deleted = await knex.transaction(async (trx) => {
      const client = await lockOAuthClient(trx, params.clientId);
      if (!client) throw new NotFoundError(CLIENT_NOT_FOUND);
      const hint = (await newestSecretHints(trx, [client.id])).get(client.id);
      await audit(trx, caller.userId, 'oauth_client.deleted', client.id, {
        name: client.name,
        ownerUserId: client.ownerUserId,
        reviewStatus: client.reviewStatus,
      });
      await deleteOAuthClient(trx, client.id);
      return presentClient(client, hint);
    });
    await bumpClientVersion(deps.stores.tokenStore, params.clientId);
    return { data: deleted };
  },
});
