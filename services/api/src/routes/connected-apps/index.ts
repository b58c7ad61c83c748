import { disconnectApp, listConnectedApps } from '@sched/clients/connected-apps';
import { clientIdParams } from '@sched/clients/schemas';
import { z } from 'zod';
import { connectedAppOutput, presentConnectedApp } from '../../presenters/connected-app.ts';
import type { AnyRoute } from '../../routing/route.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';

const TAGS = ['Connected apps'];

// No scope: a third-party app can neither list the user's other apps nor disconnect one: OAuth
// tokens get 403.

export const listConnectedAppsRoute = defineRoute({
  method: 'GET',
  path: '/me/connected-apps',
  summary: 'The OAuth apps the caller has authorized, with their scopes and last use',
  tags: TAGS,
  auth: 'user',
  response: { status: 200, description: 'Connected apps, by name', schema: z.array(connectedAppOutput) },
  handler: async ({ caller, deps }) => ({
    data: (await listConnectedApps(deps, caller.userId)).map(presentConnectedApp),
  }),
});

export const deleteConnectedAppRoute = defineRoute({
  method: 'DELETE',
  path: '/me/connected-apps/:clientId',
  summary: 'Disconnects an app: ends its access and refresh tokens for the caller and forgets the consent',
  description:
    'Every access and refresh token of the caller for the client stops working on the next request ' +
    'in every process, and the next authorization asks for consent again. 404 when the caller has ' +
    'not connected the client (or it does not exist).',
  tags: TAGS,
  auth: 'user',
  params: clientIdParams,
  response: { status: 204, description: 'Disconnected' },
  handler: async ({ caller, deps, params, ctx }) => {
    await disconnectApp(deps, caller.userId, params.clientId, auditContextOf(caller, ctx));
    return { status: 204 };
  },
});

export const connectedAppRoutes: readonly AnyRoute[] = [listConnectedAppsRoute, deleteConnectedAppRoute];
