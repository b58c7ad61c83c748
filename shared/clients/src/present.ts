import { newestSecretHints } from '@sched/db/queries/oauth-client-management';
import type { ClientSecretSummary, CreatedClientSecret, OAuthClient } from '@sched/db/queries/oauth-clients';
import { maskedHint } from '@sched/kit/secrets';
import type { Knex } from 'knex';

/**
 * An OAuth client as the API shows it (docs/oauth-clients.md "Output"): the v2 API's fields
 * (`permissions` = scopes, `secret` = masked hint of the newest active secret, null for public
 * clients and clients without one) plus scopes, clientType, websiteUrl, purpose, reviewStatus,
 * rejectionReason, isLegacy, ownerUserId and updatedAt. The settings pages show the same view.
 */
export function presentClient(client: OAuthClient, secretHint: string | null | undefined) {
  return {
    id: client.id,
    name: client.name,
    secret: secretHint ? maskedHint(secretHint) : null,
    permissions: [...client.scopes],
    scopes: [...client.scopes],
    logo: client.logo,
    websiteUrl: client.websiteUrl,
    purpose: client.purpose,
    redirectUris: [...client.redirectUris],
    organizationId: client.organizationId,
    ownerUserId: client.ownerUserId,
    clientType: client.clientType,
    registration: client.registration,
    reviewStatus: client.reviewStatus,
    rejectionReason: client.rejectionReason,
    isLegacy: client.isLegacy,
    areEmailsEnabled: client.areEmailsEnabled,
    areDefaultEventTypesEnabled: client.areDefaultEventTypesEnabled,
    areCalendarEventsEnabled: client.areCalendarEventsEnabled,
    bookingRedirectUri: client.bookingRedirectUri,
    bookingCancelRedirectUri: client.bookingCancelRedirectUri,
    bookingRescheduleRedirectUri: client.bookingRescheduleRedirectUri,
    createdAt: client.createdAt.toISOString(),
    updatedAt: client.updatedAt.toISOString(),
  };
}

export type PresentedClient = ReturnType<typeof presentClient>;

export function presentSecret(secret: ClientSecretSummary) {
  return { id: secret.id, secretHint: maskedHint(secret.hint), createdAt: secret.createdAt.toISOString() };
}

export type PresentedSecret = ReturnType<typeof presentSecret>;

export function presentNewSecret(secret: CreatedClientSecret) {
  return { ...presentSecret(secret), secret: secret.plain };
}

/** Presents clients with the masked hint of each one's newest active secret. */
export async function presentClients(
  knex: Knex,
  clients: readonly OAuthClient[],
): Promise<PresentedClient[]> {
  const hints = await newestSecretHints(
    knex,
    clients.map((c) => c.id),
  );
  return clients.map((client) => presentClient(client, hints.get(client.id)));
}

export async function presentOne(knex: Knex, client: OAuthClient): Promise<PresentedClient> {
  return (await presentClients(knex, [client]))[0]!;
}
