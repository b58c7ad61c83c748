import { z } from 'zod';

export { presentClient, presentNewSecret, presentSecret } from '@sched/clients/present';

/** The OpenAPI shape of `presentClient` (@sched/clients/present). */
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

export const secretOutput = z.object({
  id: z.int(),
  secretHint: z.string().meta({ description: 'masked: ****a1b2' }),
  createdAt: z.string(),
});
