import { recordAuditEvent } from '@sched/db/queries/audit-log';
import { createResourceServer } from '@sched/db/queries/resource-servers';
import { z } from 'zod';
import { presentResourceServer, resourceServerOutput } from '../../presenters/resource-server.ts';
import { auditContextOf } from '../../routing/audit.ts';
import { defineRoute } from '../../routing/route.ts';
import { named } from '../../openapi/named.ts';

/**
 * Resource servers: services that check tokens at `POST /v2/auth/oauth2/introspect` and may
 * introspect any token, not only their own like an OAuth client. The secret is shown once, in the
 * answer of the POST; only its SHA-256 is stored.
 */

const INTROSPECTION =
  'It authenticates at `POST /v2/auth/oauth2/introspect` with `id` as client_id and `secret` as ' +
  'client_secret (HTTP Basic or in the body) and may introspect any access or refresh token.';

export const createResourceServerRoute = defineRoute({
  method: 'POST',
  path: '/admin/resource-servers',
  summary: 'Registers a resource server that may introspect any token; its secret is shown once',
  description: `${INTROSPECTION} The secret is in this answer only; it cannot be read again.`,
  tags: ['Admin'],
  auth: 'admin',
  body: named(
    'CreateResourceServerRequest',
    z.strictObject({
      name: z.string().trim().min(1).max(200),
      description: z.string().trim().max(1000).optional(),
    }),
    { name: 'Billing API', description: 'Checks tokens for the billing service' },
  ),
  response: {
    status: 201,
    description: 'The resource server and its secret (shown once)',
    schema: named(
      'NewResourceServer',
      resourceServerOutput.extend({ secret: z.string().meta({ description: 'shown once' }) }),
      {
        id: 'rs_5f2c9a7e',
        name: 'Billing API',
        description: null,
        secretHint: '****9c3d',
        createdAt: '2026-11-26T09:30:00.000Z',
        secret: 'rss_0b8f3e6c1d9a4f7e2b5c8d1a6e9f3c7b',
      },
    ),
  },
  handler: async ({ deps, body, caller, ctx }) => {
    const knex = deps.stores.db.knex;
    const { server, secret } = await knex.transaction(async (trx) => {
      const made = await createResourceServer(trx, {
        name: body.name,
        description: body.description || null,
        createdByUserId: caller.userId,
      });
      await recordAuditEvent(trx, auditContextOf(caller, ctx), {
        action: 'resource_server.created',
        targetType: 'resource_server',
        targetId: made.server.id,
        after: { name: made.server.name, description: made.server.description },
      });
      return made;
    });
    return { status: 201, data: { ...presentResourceServer(server), secret: secret.plain } };
  },
});
