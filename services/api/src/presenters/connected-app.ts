import type { ConnectedApp } from '@sched/clients/connected-apps';
import { z } from 'zod';
import { named } from '../openapi/named.ts';

/** A connected app: `{clientId, name, logo, websiteUrl, scopes, grantedAt, lastUsedAt}`. */
export function presentConnectedApp(app: ConnectedApp) {
  return {
    clientId: app.clientId,
    name: app.name,
    logo: app.logo,
    websiteUrl: app.websiteUrl,
    scopes: app.scopes,
    grantedAt: app.grantedAt.toISOString(),
    lastUsedAt: app.lastUsedAt ? app.lastUsedAt.toISOString() : null,
  };
}

export const connectedAppOutput = named(
  'ConnectedApp',
  z.object({
    clientId: z.string(),
    name: z.string(),
    logo: z.string().nullable(),
    websiteUrl: z.string().nullable(),
    scopes: z.array(z.string()).meta({ description: 'what the user allowed the app' }),
    grantedAt: z.string().meta({ description: 'first authorization still remembered' }),
    lastUsedAt: z
      .string()
      .nullable()
      .meta({ description: 'last time the app was issued a token for the user; null when none is live' }),
  }),
  {
    clientId: 'c8d1f0e2a4b6',
    name: 'Calendar Sync',
    logo: null,
    websiteUrl: 'https://sync.example.com',
    scopes: ['BOOKING_READ', 'SCHEDULE_READ'],
    grantedAt: '2026-11-26T09:30:00.000Z',
    lastUsedAt: null,
  },
);

export const revokedTokensOutput = named(
  'RevokedTokens',
  z.object({
    revoked: z.int().meta({ description: 'usable access and refresh tokens (and unused codes) ended' }),
  }),
  { revoked: 4 },
);
