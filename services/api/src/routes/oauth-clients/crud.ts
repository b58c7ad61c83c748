import { createClient, deleteClient, getClient, listClients, updateClient } from '@sched/clients/operations';
import { presentClient, presentClients, presentOne } from '@sched/clients/present';
import { clientIdParams, createClientBody, updateClientBody } from '@sched/clients/schemas';
import { z } from 'zod';
import { actorOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { requireVerifiedEmail } from '../me/verified.ts';
import { clientOutput } from './present.ts';
import { named } from '../../openapi/named.ts';

const TAGS = ['OAuth clients'];

export const createClientRoute = defineRoute({
  method: 'POST',
  path: '/oauth-clients',
  summary: 'Registers an OAuth client (PENDING until a service administrator approves it)',
  description:
    'Confidential clients get their first secret in `secret`, in plain text, in this response only.',
  tags: TAGS,
  auth: 'api-key',
  rateLimit: { name: 'oauth-clients', what: 'OAuth clients created' },
  body: named('CreateOAuthClientRequest', createClientBody, {
    name: 'Calendar Sync',
    redirectUris: ['https://sync.example.com/callback'],
    scopes: ['BOOKING_READ', 'SCHEDULE_READ'],
    websiteUrl: 'https://sync.example.com',
    purpose: 'Shows your bookings in your calendar',
  }),
  response: { status: 201, description: 'The new client', schema: clientOutput },
  handler: async ({ caller, deps, body, ctx }) => {
    await requireVerifiedEmail(deps, caller.userId);
    const { client, secret } = await createClient(deps, actorOf(caller, ctx), body);
    return {
      status: 201,
      data: { ...presentClient(client, secret?.hint), secret: secret ? secret.plain : null },
    };
  },
});

export const listClientsRoute = defineRoute({
  method: 'GET',
  path: '/oauth-clients',
  summary: "The caller's OAuth clients and those of their organizations, newest first",
  tags: TAGS,
  auth: 'api-key',
  response: { status: 200, description: 'Clients', schema: z.array(clientOutput) },
  handler: async ({ caller, deps }) => ({
    data: await presentClients(deps.stores.db.knex, await listClients(deps, caller)),
  }),
});

export const getClientRoute = defineRoute({
  method: 'GET',
  path: '/oauth-clients/:clientId',
  summary: 'One OAuth client',
  tags: TAGS,
  auth: 'api-key',
  params: clientIdParams,
  response: { status: 200, description: 'The client', schema: clientOutput },
  handler: async ({ caller, deps, params }) => ({
    data: await presentOne(deps.stores.db.knex, await getClient(deps, caller, params.clientId)),
  }),
});

export const updateClientRoute = defineRoute({
  method: 'PATCH',
  path: '/oauth-clients/:clientId',
  summary: 'Changes an OAuth client; reviewed fields send an approved client back to review',
  description:
    'An APPROVED client goes back to PENDING (re-review) when its name, logo, website URL, redirect ' +
    'URIs or purpose change, when scopes are added or removed, or when a _READ scope is added while ' +
    'its _WRITE is granted; editing a REJECTED client resubmits it (-> PENDING). Flags and booking ' +
    'redirects never change the review status.',
  tags: TAGS,
  auth: 'api-key',
  params: clientIdParams,
  body: named('UpdateOAuthClientRequest', updateClientBody, { name: 'Calendar Sync 2', logo: null }),
  response: { status: 200, description: 'The updated client', schema: clientOutput },
  handler: async ({ caller, deps, params, body, ctx }) => {
    const { client } = await updateClient(deps, actorOf(caller, ctx), params.clientId, body);
    return { data: await presentOne(deps.stores.db.knex, client) };
  },
});

export const deleteClientRoute = defineRoute({
  method: 'DELETE',
  path: '/oauth-clients/:clientId',
  summary: 'Deletes an OAuth client with its secrets, consents and managed users',
  description:
    'Allowed to its owner, an admin or owner of its organization, or a service administrator. ' +
    'Returns the deleted client; `secret` is the masked hint.',
  tags: TAGS,
  auth: 'api-key',
  params: clientIdParams,
  response: { status: 200, description: 'The deleted client', schema: clientOutput },
  handler: async ({ caller, deps, params, ctx }) => ({
    data: await deleteClient(deps, actorOf(caller, ctx), params.clientId),
  }),
});
