// A browser single-page app with oauth4webapi: a public client (no secret), PKCE S256, the code
// exchanged and refreshed by the page itself through the token endpoint's CORS. The verifier
// and state wait in sessionStorage while the user is away; the tokens live in memory only.
import * as oauth from 'oauth4webapi';

export interface SpaSettings {
  issuer: string;
  apiBase: string;
  clientId: string;
  /** A registered redirect URI of the client, character for character (the page that finishes sign-in). */
  redirectUri: string;
  scope: string;
}

/** What survives the round trip to the sign-in page: `window.sessionStorage` in a browser. */
export type PendingStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export interface Tokens {
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch milliseconds. */
  expiresAt: number;
}

const PENDING = 'oauth-pending';

// Plain http is accepted for a local development server only.
const httpOptions = (settings: SpaSettings) =>
  new URL(settings.issuer).protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};

export async function discover(settings: SpaSettings): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(settings.issuer);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, httpOptions(settings)));
}

/** Step 1: the URL to leave for (`location.assign(url)`). */
export async function beginSignIn(
  as: oauth.AuthorizationServer,
  settings: SpaSettings,
  store: PendingStore,
): Promise<URL> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  store.setItem(PENDING, JSON.stringify({ verifier, state }));
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: settings.redirectUri,
    response_type: 'code',
    scope: settings.scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return url;
}

const toTokens = (response: oauth.TokenEndpointResponse): Tokens => ({
  accessToken: response.access_token,
  refreshToken: response.refresh_token,
  expiresAt: Date.now() + (response.expires_in ?? 0) * 1000,
});

/** Step 2, on the redirect URI's page: `currentUrl` is `new URL(location.href)`. */
export async function completeSignIn(
  as: oauth.AuthorizationServer,
  settings: SpaSettings,
  store: PendingStore,
  currentUrl: URL,
): Promise<Tokens> {
  const pending = JSON.parse(store.getItem(PENDING) ?? 'null') as { verifier: string; state: string } | null;
  store.removeItem(PENDING);
  if (!pending) throw new Error('no sign-in in progress');
  const client: oauth.Client = { client_id: settings.clientId };
  // Checks state, iss, and turns ?error=access_denied into an exception.
  const params = oauth.validateAuthResponse(as, client, currentUrl, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    settings.redirectUri,
    pending.verifier,
    httpOptions(settings),
  );
  return toTokens(await oauth.processAuthorizationCodeResponse(as, client, response));
}

/** A fetch of the resource API that refreshes the access token first when it is about to expire. */
export async function apiFetch(
  as: oauth.AuthorizationServer,
  settings: SpaSettings,
  tokens: Tokens,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  if (tokens.expiresAt - Date.now() < 60_000 && tokens.refreshToken) {
    const client: oauth.Client = { client_id: settings.clientId };
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens.refreshToken,
      httpOptions(settings),
    );
    // Every refresh returns a new refresh token; the old one is spent.
    Object.assign(tokens, toTokens(await oauth.processRefreshTokenResponse(as, client, response)));
  }
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${tokens.accessToken}`);
  return fetch(new URL(path, settings.apiBase), { ...init, headers });
}
