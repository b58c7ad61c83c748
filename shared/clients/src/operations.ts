import {
  acceptedOrganizationRole,
  deleteOAuthClient,
  listClientsVisibleTo,
  lockOAuthClient,
  newestSecretHints,
  organizationExists,
  updateClientSettings,
} from '@sched/db/queries/oauth-client-management';
import {
  type ClientReviewStatus,
  type CreatedClientSecret,
  createOAuthClient,
  type OAuthClient,
  type OAuthClientPatch,
  setReviewStatus,
  updateOAuthClient,
} from '@sched/db/queries/oauth-clients';
import { transactionWithBumps } from '@sched/db/versions';
import { BadRequestError, ForbiddenError, NotFoundError } from '@sched/kit/errors';
import {
  type ClientReviewFields,
  reviewStatusAfterUpdate,
  reviewStatusAtCreation,
} from '@sched/policy/client-review';
import type { Runtime } from '@sched/runtime/runtime';
import { auditClient } from './audit.ts';
import { withLockedClient } from './locked.ts';
import { type PresentedClient, presentClient } from './present.ts';
import { type Actor, clientFor, ORGANIZATION_FORBIDDEN } from './rights.ts';
import { type QueuedMail, queueReviewMail, sendQueued } from './review-mail.ts';
import type { CreateClientInput, UpdateClientInput } from './schemas.ts';

/**
 * OAuth-client management shared by the resource API (routes under /v2/oauth-clients) and the
 * authorization server's settings pages: every rule, audit entry and e-mail lives here once.
 * Inputs are already validated with `schemas.ts`; errors are kit's classes (same messages for both).
 */

export interface CreatedClient {
  client: OAuthClient;
  /** The first secret of a confidential client, in plain text: show it once. */
  secret: CreatedClientSecret | null;
}

export async function createClient(
  deps: Runtime,
  actor: Actor,
  input: CreateClientInput,
): Promise<CreatedClient> {
  const knex = deps.stores.db.knex;
  const review = reviewStatusAtCreation(input.scopes);
  if (!review.ok)
    throw new BadRequestError(review.reason, [{ field: 'body.scopes', message: review.reason }]);
  if (input.organizationId !== undefined) {
    if (!(await organizationExists(knex, input.organizationId)))
      throw new NotFoundError('Organization not found');
    const role = await acceptedOrganizationRole(knex, actor.userId, input.organizationId);
    if (!actor.serviceAdmin && role !== 'OWNER' && role !== 'ADMIN')
      throw new ForbiddenError(ORGANIZATION_FORBIDDEN);
  }
  // A new client has nothing cached anywhere; the settings write bumps it after the commit anyway.
  const created = await transactionWithBumps(knex, deps.stores.tokenStore, async (trx, bumper) => {
    const { client, secret } = await createOAuthClient(trx, {
      ownerUserId: actor.userId,
      name: input.name,
      redirectUris: input.redirectUris,
      scopes: input.scopes,
      clientType: input.clientType ?? 'confidential',
      organizationId: input.organizationId ?? null,
      logo: input.logo ?? null,
      websiteUrl: input.websiteUrl ?? null,
      purpose: input.purpose ?? null,
      reviewStatus: review.status,
    });
    await updateClientSettings(trx, bumper, client.id, input);
    await auditClient(
      trx,
      actor,
      'oauth_client.created',
      client.id,
      { reviewStatus: review.status, scopes: input.scopes, clientType: client.clientType },
      {
        organizationId: client.organizationId,
        after: { ...reviewFields(client), clientType: client.clientType, reviewStatus: review.status },
      },
    );
    const reloaded = await lockOAuthClient(trx, client.id);
    return { client: reloaded ?? client, secret };
  });
  return created;
}

/**
 * Clients the actor owns and those of organizations where they have an accepted membership, newest
 * first; all of them, or one page.
 */
export const listClients = (
  deps: Runtime,
  actor: Actor,
  page?: { skip: number; take: number },
): Promise<OAuthClient[]> => listClientsVisibleTo(deps.stores.db.knex, actor.userId, page);

export const getClient = (deps: Runtime, actor: Actor, clientId: string): Promise<OAuthClient> =>
  clientFor(deps.stores.db.knex, actor, clientId, 'view');

const reviewFields = (client: OAuthClient): ClientReviewFields => ({
  name: client.name,
  logo: client.logo,
  websiteUrl: client.websiteUrl,
  redirectUris: client.redirectUris,
  purpose: client.purpose,
  scopes: client.scopes,
});

export interface UpdatedClient {
  client: OAuthClient;
  statusFrom: ClientReviewStatus;
  /** What changed in reviewed fields (client-review reasons); empty when none. */
  reasons: readonly string[];
}

/**
 * Applies an edit. Every edit goes through `reviewStatusAfterUpdate` (docs/oauth-clients.md "Review
 * state machine") in one transaction with the row locked; the owner is e-mailed when an approved
 * client goes back to review.
 */
export async function updateClient(
  deps: Runtime,
  actor: Actor,
  clientId: string,
  input: UpdateClientInput,
): Promise<UpdatedClient> {
  await clientFor(deps.stores.db.knex, actor, clientId, 'manage');
  const { outcome, mail } = await withLockedClient(deps, clientId, async (trx, before, bumper) => {
    const patch: OAuthClientPatch = {};
    if (input.name !== undefined) patch.name = input.name;
    if (input.logo !== undefined) patch.logo = input.logo;
    if (input.websiteUrl !== undefined) patch.websiteUrl = input.websiteUrl;
    if (input.purpose !== undefined) patch.purpose = input.purpose;
    if (input.redirectUris !== undefined) patch.redirectUris = input.redirectUris;
    if (input.scopes !== undefined) patch.scopes = input.scopes;
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
    const settingsChanged = await updateClientSettings(trx, bumper, before.id, input);
    if (result.status !== before.reviewStatus) await setReviewStatus(trx, bumper, before.id, result.status);
    if (result.reasons.length > 0 || settingsChanged) {
      await auditClient(
        trx,
        actor,
        'oauth_client.updated',
        before.id,
        {
          fields: Object.keys(input),
          changes: result.reasons,
          statusFrom: before.reviewStatus,
          statusTo: result.status,
          leftLegacy: result.leftLegacy,
        },
        {
          organizationId: before.organizationId,
          before: { ...reviewFields(before), reviewStatus: before.reviewStatus },
          after: { ...after, reviewStatus: result.status },
        },
      );
    }
    if (result.status !== before.reviewStatus) {
      await auditClient(
        trx,
        actor,
        'oauth_client.review_status_changed',
        before.id,
        {
          from: before.reviewStatus,
          to: result.status,
          reasons: result.reasons,
        },
        { organizationId: before.organizationId },
      );
    }
    const updated = (await lockOAuthClient(trx, before.id))!;
    let queued: QueuedMail | null = null;
    // The owner learns that an approved client stopped working until it is approved again.
    if (before.reviewStatus === 'APPROVED' && updated.reviewStatus === 'PENDING')
      queued = await queueReviewMail(trx, deps, updated, { kind: 're-review', changes: result.reasons });
    const changed: UpdatedClient = {
      client: updated,
      statusFrom: before.reviewStatus,
      reasons: result.reasons,
    };
    return { outcome: changed, mail: queued };
  });
  await sendQueued(deps, mail);
  return outcome;
}

/** Hard delete, audited; returns the client as it was (secret masked). */
export async function deleteClient(deps: Runtime, actor: Actor, clientId: string): Promise<PresentedClient> {
  await clientFor(deps.stores.db.knex, actor, clientId, 'manage');
  const deleted = await withLockedClient(deps, clientId, async (trx, client, bumper) => {
    const hint = (await newestSecretHints(trx, [client.id])).get(client.id);
    await auditClient(
      trx,
      actor,
      'oauth_client.deleted',
      client.id,
      {
        name: client.name,
        ownerUserId: client.ownerUserId,
        reviewStatus: client.reviewStatus,
      },
      {
        organizationId: client.organizationId,
        before: {
          ...reviewFields(client),
          reviewStatus: client.reviewStatus,
          ownerUserId: client.ownerUserId,
        },
      },
    );
    await deleteOAuthClient(trx, bumper, client.id);
    return presentClient(client, hint);
  });
  // Its grants and tokens go too (the owner index), not only refused while the id is unknown.
  await deps.stores.tokenStore.revokeByClient(clientId);
  return deleted;
}
