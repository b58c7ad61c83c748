import type { ConnectedApp } from '@sched/clients/connected-apps';
import { z } from 'zod';

/** Contract §12: `{clientId, name, logo, websiteUrl, scopes, grantedAt, lastUsedAt}`. */
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

export const connectedAppOutput = z.object({
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
});

export const revokedTokensOutput = z.object({
  revoked: z.int().meta({ description: 'usable access and refresh tokens (and unused codes) ended' }),
});
