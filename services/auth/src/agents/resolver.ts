import { recordAgentClient, syncAgentDocument } from '@sched/db/queries/agent-clients';
import type { OAuthClientWithSecrets } from '@sched/db/queries/oauth-clients';
import type { Config } from '@sched/kit/config';
import { APPROVED_AGENT_SCOPES, initialAgentStatus, isDocumentClientId } from '@sched/policy/agent-clients';
import type Provider from 'oidc-provider';
import type { ClientDirectory, ClientLoader } from '../provider/clients.ts';
import { describeDocumentFailure } from './document-failure.ts';
import { AgentDocumentError } from './errors.ts';

const MEMO = 'agentClients';

/** What the agent's (already validated) document says about it, as oidc-provider parsed it. */
interface DocumentClient {
  clientName?: string;
  redirectUris?: string[];
  logoUri?: string;
  clientUri?: string;
}

/**
 * Agent clients whose client_id is the https URL of their Client ID Metadata Document. oidc-provider
 * fetches, validates and caches the document (features.clientIdMetadataDocument, through our
 * outbound module: provider/agent-options.ts); this records the agent in the clients table the
 * first time it is used (PENDING, or APPROVED for a trusted host) and keeps the row's name and
 * redirect URIs as the document says, so every check and page downstream reads the row like any
 * other client's. `load` is the server's ClientLoader: other client ids go to the directory.
 */
export class AgentClients {
  readonly directory: ClientDirectory;
  readonly config: Config['agents'];
  provider: Provider | undefined;

  constructor(directory: ClientDirectory, config: Config['agents']) {
    this.directory = directory;
    this.config = config;
  }

  readonly load: ClientLoader = (state, clientId) => {
    if (!isDocumentClientId(clientId)) return this.directory.load(state, clientId);
    if (!state) return this.resolve(undefined, clientId);
    const memo = requestMemo(state);
    let loading = memo.get(clientId);
    if (!loading) {
      loading = this.resolve(state, clientId);
      memo.set(clientId, loading);
    }
    return loading;
  };

  private async resolve(
    state: Record<string, unknown> | undefined,
    clientId: string,
  ): Promise<OAuthClientWithSecrets | null> {
    if (this.config.policy === 'off') return null;
    const row = await this.directory.load(state, clientId);
    // A rejected agent is refused by its review state: no need to fetch its document again.
    if (row?.reviewStatus === 'REJECTED') return row;
    const document = await this.fetchDocument(clientId);
    if (!document) return null;
    const knex = this.directory.knex;
    const versions = this.directory.store;
    const described = {
      name: document.clientName ?? new URL(clientId).host,
      redirectUris: document.redirectUris ?? [],
      logo: document.logoUri ?? null,
      websiteUrl: document.clientUri ?? null,
    };
    if (!row) {
      await recordAgentClient(knex, versions, {
        id: clientId,
        registration: 'metadata_document',
        scopes: [...APPROVED_AGENT_SCOPES],
        reviewStatus: initialAgentStatus('metadata_document', clientId, this.config.trustedHosts),
        ...described,
      });
    } else {
      await syncAgentDocument(knex, versions, clientId, described);
    }
    return this.directory.reload(state, clientId);
  }

  /** The document through oidc-provider (its cache, or one fetch shared by concurrent first uses). */
  private async fetchDocument(clientId: string): Promise<DocumentClient | undefined> {
    try {
      return (await this.provider!.Client.find(clientId)) as DocumentClient | undefined;
    } catch (error) {
      throw new AgentDocumentError(describeDocumentFailure(error));
    }
  }
}

function requestMemo(state: Record<string, unknown>): Map<string, Promise<OAuthClientWithSecrets | null>> {
  let memo = state[MEMO] as Map<string, Promise<OAuthClientWithSecrets | null>> | undefined;
  if (!memo) {
    memo = new Map();
    state[MEMO] = memo;
  }
  return memo;
}
