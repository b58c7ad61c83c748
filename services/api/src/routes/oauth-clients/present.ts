import type { CreatedClientSecret, ClientSecretSummary, OAuthClient } from '@sched/db/queries/oauth-clients';
import { maskedHint } from '@sched/kit/secrets';
import { z } from 'zod';

/**
 * An OAuth client as the API shows it (contract §8): the api-v2 fields (`permissions` = scopes,
 * `secret` = masked hint of the newest active secret, null for public clients and clients without
 * one) plus scopes, clientType, websiteUrl, purpose, reviewStatus, rejectionReason, isLegacy,
 * ownerUserId and updatedAt.
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

const url = z.string().nullable();

export const clientOutput = z.object({
  id: z.string(),
  name: z.string(),
  secret: z
    .string()
    .nullable()
    .meta({ description: 'masked hint (****a1b2); plain text only in the creation response' }),
  permissions: z.array(z.string()).meta({ description: 'the client scopes' }),
  scopes: z.array(z.string()),
  logo: url,
  websiteUrl: url,
  purpose: z.string().nullable(),
  redirectUris: z.array(z.string()),
  organizationId: z.int().nullable(),
  ownerUserId: z.int(),
  clientType: z.enum(['confidential', 'public']),
  reviewStatus: z.enum(['PENDING', 'APPROVED', 'REJECTED']),
  rejectionReason: z.string().nullable(),
  isLegacy: z.boolean(),
  areEmailsEnabled: z.boolean(),
  areDefaultEventTypesEnabled: z.boolean(),
  areCalendarEventsEnabled: z.boolean(),
  bookingRedirectUri: url,
  bookingCancelRedirectUri: url,
  bookingRescheduleRedirectUri: url,
  createdAt: z.string(),
  updatedAt: z.string(),
});

export function presentSecret(secret: ClientSecretSummary) {
  return { id: secret.id, secretHint: maskedHint(secret.hint), createdAt: secret.createdAt.toISOString() };
}

export function presentNewSecret(secret: CreatedClientSecret) {
  return { ...presentSecret(secret), secret: secret.plain };
}

export const secretOutput = z.object({
  id: z.int(),
  secretHint: z.string().meta({ description: 'masked: ****a1b2' }),
  createdAt: z.string(),
});
