import type { OAuthClientWithSecrets } from '@sched/db/queries/oauth-clients';
import Provider from 'oidc-provider';
import { type ClientLoader, clientMetadata } from './clients.ts';

type ProviderClient = InstanceType<Provider['Client']>;

/**
 * oidc-provider's `Client.find`, answered from our client directory (clients.ts) instead of its
 * own cache. The library keeps built clients in a fixed 100-entry LRU keyed by a SHA-256 of the
 * serialised metadata: every lookup serialises and hashes the metadata, and with more than 100
 * clients in use most lookups rebuild (and re-validate) the client. Here the built client hangs
 * off the directory's row: the row is the same object for as long as the client's version is
 * unchanged, so a lookup is a Map read plus a WeakMap read, whatever the number of clients, and
 * a change anywhere (secret, review decision, redirect URIs: each bumps `client:<id>`) gives a new
 * row on the next request, hence a freshly built client. Built clients die with their rows.
 *
 * `Client.find` is the one door through which the library gets a client (authorization, token,
 * revocation, userinfo, introspection). We configure no static clients; an agent identified by its
 * client ID metadata document (or an id we do not know) goes to the library's own find, which
 * fetches and caches the document (agents/): the document, not our row, is authoritative there.
 */
export function serveClientsFromDirectory(provider: Provider, loadClient: ClientLoader): void {
  const built = new WeakMap<OAuthClientWithSecrets, ProviderClient>();
  const Client = provider.Client as unknown as {
    find(id: unknown): Promise<ProviderClient | undefined>;
    new (metadata: Record<string, unknown>): ProviderClient;
  };
  const libraryFind = Client.find.bind(Client);
  Client.find = async function find(id) {
    if (typeof id !== 'string' || id.length === 0) return undefined;
    const row = await loadClient(Provider.ctx?.state as Record<string, unknown> | undefined, id);
    if (!row || row.registration === 'metadata_document') return libraryFind(id);
    let client = built.get(row);
    if (!client) {
      // What the library's own find does for an adapter's client (validation included), minus
      // sector identifier checks: our clients have no sector_identifier_uri.
      client = new Client(clientMetadata(row));
      built.set(row, client);
    }
    return client;
  };
}
