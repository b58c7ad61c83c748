import { clientIdParams } from '@sched/clients/schemas';
import { organizationNames } from '@sched/db/queries/oauth-client-management';
import { NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';

/** What the settings' client pages and the admin console both say about OAuth clients. */

/** The :clientId of the path, checked like the API checks it (unknown shapes are simply not found). */
export function clientIdOf(ctx: Context): string {
  const parsed = clientIdParams.safeParse({
    clientId: (ctx as Context & { params?: Record<string, string> }).params?.clientId,
  });
  if (!parsed.success) throw new NotFoundError('OAuth client not found');
  return parsed.data.clientId;
}

/** Names of the organizations of `clients`, to say whose each one is. */
export const organizationsOf = (deps: AuthDeps, clients: ReadonlyArray<{ organizationId: number | null }>) =>
  organizationNames(
    deps.runtime.stores.db.knex,
    clients.flatMap((client) => (client.organizationId === null ? [] : [client.organizationId])),
  );

/** Who a client belongs to, as the lists and the client pages say it. */
export const ownerLabel = (organizationId: number | null, names: ReadonlyMap<number, string>) =>
  organizationId === null ? 'Personal' : (names.get(organizationId) ?? `Organization #${organizationId}`);
