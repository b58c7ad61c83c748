import { backendFailure } from '@sched/db/availability';
import type { Logger } from '@sched/kit/logger';
import { countGrant } from '@sched/kit/metrics';
import type { Runtime } from '@sched/runtime/runtime';
import { redirectUriAllowed } from '@sched/policy/redirect-uris';
import Provider from 'oidc-provider';
import { applyFramedCookieAttributes } from '../embed-flow/cookies.ts';
import { EMBED_RESPONSE_MODE } from '../embed-flow/flow.ts';
import { embedResponseMode } from '../embed-flow/response-mode.ts';
import type { FindAccount } from './account.ts';
import type { RecordRegisteredClient } from './adapter.ts';
import { serveClientsFromDirectory } from './client-instances.ts';
import { type ClientLoader, secretMatches } from './clients.ts';
import { providerConfiguration } from './configuration.ts';
import { storeLegacyFlagOnGrants } from './grants.ts';
import { storeCredentialEpochOnSessions } from './session-credential.ts';
import { tagTokenIdsWithTheirGrant } from './token-ids.ts';

/**
 * The oidc-provider instance. It is itself the Koa app of the authorization server: our pages and
 * endpoint wrappers are mounted in front of its router with `provider.use` (app.ts).
 */
export function createProvider(
  runtime: Runtime,
  loadClient: ClientLoader,
  registerClient: RecordRegisteredClient,
  findAccount: FindAccount,
): Provider {
  const { config, logger } = runtime;
  const secureCookies = new URL(config.appUrl).protocol === 'https:';
  const provider = new Provider(
    config.appUrl,
    providerConfiguration({
      knex: runtime.stores.db.knex,
      store: runtime.stores.tokenStore,
      findAccount,
      loadClient,
      cookieKeys: config.cookieKeys,
      secureCookies,
      signingAlg: config.idTokenSigningAlg,
      tokenTtl: config.tokenTtl,
      baseUrl: config.baseUrl,
      agents: config.agents,
      outboundPrivateNetworks: config.outboundPrivateNetworks,
      registerClient,
    }),
  );
  provider.proxy = config.trustProxy;
  serveClientsFromDirectory(provider, loadClient);
  storeLegacyFlagOnGrants(provider);
  storeCredentialEpochOnSessions(provider);
  tagTokenIdsWithTheirGrant(provider);
  acceptAnyActiveSecret(provider);
  loopbackAnyPort(provider);
  if (secureCookies) markCookiesSecure(provider);
  framedCookiesForEmbedFlows(provider);
  // The onboarding embed's answer: a page posting the result to the embedding page (src/embed/).
  provider.registerResponseMode(EMBED_RESPONSE_MODE, embedResponseMode);
  reportFailures(provider, logger);
  return provider;
}

/**
 * Redirect URIs: exact, except that loopback IP literals match any port (RFC 8252 7.3), for every
 * client, not only those registered as `native` (most native clients register as web ones).
 */
function loopbackAnyPort(provider: Provider): void {
  const prototype = provider.Client.prototype as unknown as {
    redirectUriAllowed(this: { redirectUris?: string[] }, value: string): boolean;
  };
  prototype.redirectUriAllowed = function allowed(value) {
    return typeof value === 'string' && redirectUriAllowed(this.redirectUris ?? [], value);
  };
}

/** Two active secrets: the presented one is compared with each stored hash (see secretMatches). */
function acceptAnyActiveSecret(provider: Provider): void {
  // Extra client metadata keeps its snake_case name on the Client instance.
  const prototype = provider.Client.prototype as unknown as {
    compareClientSecret(this: { secret_hashes?: string[] }, actual: string): Promise<boolean>;
  };
  prototype.compareClientSecret = async function compareClientSecret(actual) {
    return typeof actual === 'string' && secretMatches(actual, this.secret_hashes ?? []);
  };
}

/**
 * With an https APP_URL every cookie is Secure, also when TLS ends at a gateway and the request
 * reaches us over plain http (Koa would otherwise refuse to set a Secure cookie there).
 */
function markCookiesSecure(provider: Provider): void {
  const createContext = provider.createContext.bind(provider);
  provider.createContext = (req, res) => {
    const ctx = createContext(req, res);
    ctx.cookies.secure = true;
    return ctx;
  };
}

/**
 * Every Koa context of the provider (the request's, and the one oidc-provider makes to set its
 * session cookie) gives cookies of onboarding-embed frames their cross-site attributes
 * (src/embed/cookies.ts); other cookies are untouched.
 */
function framedCookiesForEmbedFlows(provider: Provider): void {
  const createContext = provider.createContext.bind(provider);
  provider.createContext = (req, res) => {
    const ctx = createContext(req, res);
    applyFramedCookieAttributes(ctx.cookies, res);
    return ctx;
  };
}

/** Keeps oidc-provider's failure reasons for the endpoint wrappers, and logs server errors. */
type GrantEventContext = { oidc?: { params?: { grant_type?: unknown } } };

function reportFailures(provider: Provider, logger: Logger): void {
  const remember = (ctx: { state: Record<string, unknown> }, error: unknown) => {
    ctx.state.oauthFailure = error;
  };
  provider.on('grant.success', (ctx: GrantEventContext) =>
    countGrant(ctx.oidc?.params?.grant_type, 'success'),
  );
  provider.on('grant.error', (ctx: GrantEventContext, error: { error?: unknown }) => {
    countGrant(ctx.oidc?.params?.grant_type, typeof error?.error === 'string' ? error.error : 'server_error');
  });
  provider.on('grant.error', remember);
  provider.on('revocation.error', remember);
  provider.on(
    'server_error',
    (ctx: { state?: { log?: Logger; backendFailure?: unknown } }, error: unknown) => {
      // An outage is logged once by the back end's monitor, and answered 503 by renderErrors.
      const outage = backendFailure(error);
      if (outage && ctx.state) ctx.state.backendFailure = outage;
      else (ctx.state?.log ?? logger).error({ err: error }, 'authorization server error');
    },
  );
}
