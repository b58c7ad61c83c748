import { createHash } from 'node:crypto';
import type { Config } from '@sched/kit/config';
import { findUnfitText } from '@sched/kit/http/unfit-text';
import { createOutboundFetch } from '@sched/kit/outbound';
import { isDocumentClientId, isLoopbackRedirect } from '@sched/policy/agent-clients';
import { type Configuration, errors, type KoaContextWithOIDC } from 'oidc-provider';

/** Documents are small: 5 KB, 3 s, no redirects (docs/operators-agents.md "Fetching documents"). */
export const DOCUMENT_MAX_BYTES = 5000;
const DOCUMENT_TIMEOUT_MS = 3000;
/** Seconds a document is kept when its caching headers say less / more (oidc-provider's bounds). */
export const DOCUMENT_CACHE_SECONDS = { min: 60, max: 24 * 3600 };

type Features = NonNullable<Configuration['features']>;

/**
 * oidc-provider's parts of agent clients (docs/operators-agents.md): Client ID Metadata Documents
 * fetched through our outbound module (address rule unless OUTBOUND_PRIVATE_NETWORKS=allow, https
 * only, no redirects, 5 KB, 3 s; the library itself refuses a client_id other than the URL and
 * secret-based auth methods, caches per HTTP caching headers within DOCUMENT_CACHE_SECONDS in an
 * LRU of 100 documents, and fetches once for concurrent first uses), and dynamic registration when
 * DCR_ENABLED. Both are off with AGENT_CLIENTS=off. Their review is agents/resolver.ts's.
 */
export function agentProviderOptions(
  agents: Config['agents'],
  outboundPrivateNetworks: boolean,
): Pick<Configuration, 'fetch' | 'fetchResponseBodyLimits'> & {
  features: Pick<Features, 'clientIdMetadataDocument' | 'registration'>;
} {
  const on = agents.policy !== 'off';
  const outbound = createOutboundFetch({
    allowPrivateNetworks: outboundPrivateNetworks,
    requireHttps: true,
    maxRedirects: 0,
    maxBytes: DOCUMENT_MAX_BYTES,
    timeoutMs: DOCUMENT_TIMEOUT_MS,
  });
  return {
    // oidc-provider's own dispatcher and 2.5 s signal are replaced by the outbound module's rules.
    fetch: (input, init) =>
      outbound(input, { method: init?.method ?? 'GET', headers: { accept: 'application/json' } }),
    fetchResponseBodyLimits: { 'client_id metadata document': DOCUMENT_MAX_BYTES },
    features: {
      clientIdMetadataDocument: {
        enabled: on,
        ack: 'draft-02',
        allowFetch: () => on,
        allowClient: () => on,
        cacheDuration: DOCUMENT_CACHE_SECONDS,
      },
      registration: {
        enabled: on && agents.dynamicRegistration,
        initialAccessToken: false,
        // Identical registrations are answered with the same client, not a new row each time.
        idFactory: registrationClientId,
        issueRegistrationAccessToken: false,
      },
    },
  };
}

/** `dcr_` + a hash of the registration's metadata, members sorted: the same request, the same id. */
export function registrationClientId(ctx: KoaContextWithOIDC): string {
  const body = (ctx.oidc.body ?? {}) as Record<string, unknown>;
  return `dcr_${createHash('sha256').update(canonicalJson(body)).digest('base64url').slice(0, 32)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const PUBLIC_ONLY = 'only public clients are accepted: token_endpoint_auth_method must be "none"';
/** As for clients made in settings (LIMITS.name of @sched/clients/schemas). */
const NAME_MAX = 100;

/**
 * What clients made in settings are held to as well: text the database can store (no NUL, no lone
 * surrogate: a 500 otherwise), a name of at most 100 characters, and no authorization code sent in
 * clear text: a redirect URI over http must go to this computer (loopback). Private-use schemes of
 * native apps (`com.example.app:/cb`) stay allowed.
 */
function checkAgentMetadataText(metadata: Record<string, unknown>): void {
  const unfit = findUnfitText(metadata, 'metadata');
  if (unfit)
    throw new errors.InvalidClientMetadata(`${unfit.field.replace(/^metadata\./, '')} ${unfit.message}`);
  if (typeof metadata.client_name === 'string' && metadata.client_name.length > NAME_MAX)
    throw new errors.InvalidClientMetadata(`client_name must be at most ${NAME_MAX} characters`);
  const redirectUris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
  for (const uri of redirectUris) {
    if (typeof uri === 'string' && /^http:/i.test(uri) && !isLoopbackRedirect(uri))
      throw Object.assign(new errors.InvalidRedirectUri(), {
        error_description: 'redirect_uris must use https (http only to localhost, 127.0.0.1 or [::1])',
      });
  }
}

/**
 * `extraClientMetadata.validator`, run while oidc-provider builds a client: agent clients (from a
 * metadata document, or being registered) are public clients of the code flow with refresh
 * tokens. A document that omits the auth method is public (the library refuses the secret-based
 * ones itself; anything else, private_key_jwt for one, is refused here); a registration must say
 * "none". A document whose redirect URIs all go to this computer (loopback) is a native client.
 * Names, text and redirect URIs are held to the rules of settings clients (checkAgentMetadataText).
 * Settings clients pass untouched.
 */
export function validateAgentMetadata(
  ctx: KoaContextWithOIDC | undefined,
  key: string,
  _value: unknown,
  metadata: Record<string, unknown>,
): void {
  if (key !== 'secret_hashes') return;
  const fromDocument = typeof metadata.client_id === 'string' && isDocumentClientId(metadata.client_id);
  const registering = ctx?.oidc?.route === 'registration';
  if (!fromDocument && !registering) return;
  checkAgentMetadataText(metadata);
  if (registering) {
    const raw = (ctx!.oidc.body as Record<string, unknown> | undefined)?.token_endpoint_auth_method;
    if (raw !== 'none') throw new errors.InvalidClientMetadata(PUBLIC_ONLY);
  } else if (metadata.token_endpoint_auth_method === 'client_secret_basic') {
    // The library's default for an omitted method (explicit secret-based methods were refused).
    metadata.token_endpoint_auth_method = 'none';
  }
  if (metadata.token_endpoint_auth_method !== 'none') throw new errors.InvalidClientMetadata(PUBLIC_ONLY);
  metadata.secret_hashes = [];
  metadata.grant_types = ['authorization_code', 'refresh_token'];
  metadata.response_types = ['code'];
  const redirectUris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as string[]) : [];
  const web = redirectUris.every((uri) => /^https?:/i.test(uri)) && !redirectUris.every(isLoopbackRedirect);
  metadata.application_type = web ? 'web' : 'native';
}
