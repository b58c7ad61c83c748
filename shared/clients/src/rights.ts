import { acceptedOrganizationRole } from '@sched/db/queries/oauth-client-management';
import { findOAuthClient, type OAuthClient } from '@sched/db/queries/oauth-clients';
import { ForbiddenError, NotFoundError } from '@sched/kit/errors';
import type { Knex } from 'knex';
import type { AuditContext } from '@sched/db/queries/audit-log';

/** Who acts: a signed-in user (settings pages) or an API-key caller (resource API). */
export interface Actor {
  userId: number;
  serviceAdmin: boolean;
  /** Who acts and the request (audit events); without it the events name the user only. */
  audit?: AuditContext;
}

/**
 * Who may do what with a client (docs/oauth-clients.md):
 * - view (read it, list secrets): its owner, any accepted member of its organization, a service admin;
 * - manage (edit, secrets, delete): its owner, an accepted ADMIN or OWNER of its organization, a
 *   service admin.
 * Anyone who cannot view gets 404 (existence is not revealed); a viewer who cannot manage gets 403.
 */
export interface ClientRights {
  view: boolean;
  manage: boolean;
}

export const CLIENT_NOT_FOUND = 'OAuth client not found';
export const MANAGE_FORBIDDEN =
  'Only the owner of this OAuth client, an admin or owner of its organization, or a service administrator may change or delete it';
export const ORGANIZATION_FORBIDDEN =
  'Only an admin or owner of the organization may register a client for it';

export async function rightsOn(knex: Knex, actor: Actor, client: OAuthClient): Promise<ClientRights> {
  if (client.ownerUserId === actor.userId || actor.serviceAdmin) return { view: true, manage: true };
  if (client.organizationId === null) return { view: false, manage: false };
  const role = await acceptedOrganizationRole(knex, actor.userId, client.organizationId);
  if (role === null) return { view: false, manage: false };
  return { view: true, manage: role === 'OWNER' || role === 'ADMIN' };
}

/** The client if the actor may `need` it: 404 when they cannot see it, 403 when they can only see it. */
export async function clientFor(
  knex: Knex,
  actor: Actor,
  clientId: string,
  need: keyof ClientRights,
): Promise<OAuthClient> {
  const client = await findOAuthClient(knex, clientId);
  if (!client) throw new NotFoundError(CLIENT_NOT_FOUND);
  const rights = await rightsOn(knex, actor, client);
  if (!rights.view) throw new NotFoundError(CLIENT_NOT_FOUND);
  if (!rights[need]) throw new ForbiddenError(MANAGE_FORBIDDEN);
  return client;
}
