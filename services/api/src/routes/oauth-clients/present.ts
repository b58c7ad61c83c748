import { z } from 'zod';
import { named } from '../../openapi/named.ts';

export { presentClient, presentNewSecret, presentSecret } from '@sched/clients/present';

/** The OpenAPI shape of `presentClient` (@sched/clients/present). */
const url = z.string().nullable();

export const clientOutput = named(
  'OAuthClient',
  z.object({
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
    ownerUserId: z
      .int()
      .nullable()
      .meta({ description: 'null for agent clients (they register themselves)' }),
    clientType: z.enum(['confidential', 'public']),
    registration: z.enum(['settings', 'metadata_document', 'dynamic']).meta({
      description:
        'settings: made in settings, by API or CLI; metadata_document: an agent whose client_id is the URL of its client metadata document; dynamic: dynamic client registration',
    }),
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
  }),
  {
    id: 'c8d1f0e2a4b6',
    name: 'Calendar Sync',
    secret: '****a1b2',
    permissions: ['BOOKING_READ', 'SCHEDULE_READ'],
    scopes: ['BOOKING_READ', 'SCHEDULE_READ'],
    logo: null,
    websiteUrl: 'https://sync.example.com',
    purpose: 'Shows your bookings in your calendar',
    redirectUris: ['https://sync.example.com/callback'],
    organizationId: null,
    ownerUserId: 5,
    clientType: 'confidential',
    registration: 'settings',
    reviewStatus: 'APPROVED',
    rejectionReason: null,
    isLegacy: false,
    areEmailsEnabled: false,
    areDefaultEventTypesEnabled: false,
    areCalendarEventsEnabled: false,
    bookingRedirectUri: null,
    bookingCancelRedirectUri: null,
    bookingRescheduleRedirectUri: null,
    createdAt: '2026-11-26T09:30:00.000Z',
    updatedAt: '2026-11-26T09:30:00.000Z',
  },
);

export const secretOutput = named(
  'ClientSecret',
  z.object({
    id: z.int(),
    secretHint: z.string().meta({ description: 'masked: ****a1b2' }),
    createdAt: z.string(),
  }),
  { id: 2, secretHint: '****a1b2', createdAt: '2026-11-26T09:30:00.000Z' },
);
