import { insertAuditEntry } from '@sched/db/queries/audit-log';
import {
  acceptedOrganizationRole,
  enqueueMail,
  findUserEmail,
  newestSecretHints,
} from '@sched/db/queries/oauth-client-management';
import { findOAuthClient, type OAuthClient } from '@sched/db/queries/oauth-clients';
import { ForbiddenError, NotFoundError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';
import type { Knex } from 'knex';
import { deliverQueuedMail } from '../../mail/deliver.ts';
import { type ReviewMessageInput, reviewMessage } from '../../mail/oauth-client-review.ts';
import type { UserCaller } from '../../routing/caller.ts';
import { presentClient } from './present.ts';

/**
 * Who may do what with a client (docs/oauth-clients.md):
 * - view (GET, list secrets): its owner, any accepted member of its organization, a service admin;
 * - manage (PATCH, secrets, DELETE): its owner, an accepted ADMIN or OWNER of its organization, a
 *   service admin.
 * Anyone who cannot view gets 404 (existence is not revealed); a viewer who cannot manage gets 403.
 */
export interface ClientRights {
  view: boolean;
  manage: boolean;
}

export async function rightsOn(knex: Knex, caller: UserCaller, client: OAuthClient): Promise<ClientRights> {
  if (client.ownerUserId === caller.userId || caller.serviceAdmin) return { view: true, manage: true };
  if (client.organizationId === null) return { view: false, manage: false };
  const role = await acceptedOrganizationRole(knex, caller.userId, client.organizationId);
  if (role === null) return { view: false, manage: false };
  return { view: true, manage: role === 'OWNER' || role === 'ADMIN' };
}

export const CLIENT_NOT_FOUND = 'OAuth client not found';
export const MANAGE_FORBIDDEN =
  'Only the owner of this OAuth client, an admin or owner of its organization, or a service administrator may change or delete it';

/** The client if the caller may `need` it: 404 when they cannot see it, 403 when they can only see it. */
export async function clientFor(
  deps: Runtime,
  caller: UserCaller,
  clientId: string,
  need: keyof ClientRights,
): Promise<OAuthClient> {
  const knex = deps.stores.db.knex;
  const client = await findOAuthClient(knex, clientId);
  if (!client) throw new NotFoundError(CLIENT_NOT_FOUND);
  const rights = await rightsOn(knex, caller, client);
  if (!rights.view) throw new NotFoundError(CLIENT_NOT_FOUND);
  if (!rights[need]) throw new ForbiddenError(MANAGE_FORBIDDEN);
  return client;
}

/** Presents clients with the masked hint of each one's newest active secret. */
export async function presentClients(knex: Knex, clients: readonly OAuthClient[]) {
  const hints = await newestSecretHints(
    knex,
    clients.map((c) => c.id),
  );
  return clients.map((client) => presentClient(client, hints.get(client.id)));
}

export async function presentOne(knex: Knex, client: OAuthClient) {
  return (await presentClients(knex, [client]))[0]!;
}

export const audit = (
  trx: Knex,
  actorUserId: number | null,
  action: string,
  clientId: string,
  details: Record<string, unknown> = {},
) =>
  insertAuditEntry(trx, { actorUserId, action, subjectType: 'oauth_client', subjectId: clientId, details });

export interface QueuedMail {
  id: number;
  message: { to: string; subject: string; text: string; html: string };
}

/** Writes the review e-mail to the owner into the outbox (inside the change's transaction). */
export async function queueReviewMail(
  trx: Knex,
  deps: Runtime,
  client: OAuthClient,
  input: Omit<ReviewMessageInput, 'client' | 'settingsUrl'>,
): Promise<QueuedMail | null> {
  const to = await findUserEmail(trx, client.ownerUserId);
  if (!to) return null;
  const content = reviewMessage({
    ...input,
    client,
    settingsUrl: `${deps.config.appUrl.replace(/\/$/, '')}/settings/oauth-clients`,
  });
  const id = await enqueueMail(trx, { recipient: to, ...content });
  return { id, message: { to, ...content } };
}

/** After commit: sends what was queued (failures stay in the outbox, see deliverQueuedMail). */
export async function sendQueued(deps: Runtime, mail: QueuedMail | null): Promise<void> {
  if (mail) await deliverQueuedMail(deps, mail.id, mail.message);
}
