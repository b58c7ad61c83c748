// A confidential web app: a Node server that signs its users in with openid-client 6 (code flow
// with PKCE, state and nonce), keeps their tokens in a server-side session, refreshes them, reads
// userinfo and calls the resource API with the access token. The browser only ever holds a
// session cookie.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import * as client from 'openid-client';

export interface WebAppSettings {
  /** The authorization server's issuer (its APP_URL), e.g. https://sched.example.com */
  issuer: string;
  /** The resource API's origin (BASE_URL; the same origin in an all-in-one deployment). */
  apiBase: string;
  clientId: string;
  clientSecret: string;
  /** One of the client's registered redirect URIs, character for character: this app's /callback. */
  redirectUri: string;
  /** For example 'openid profile email PROFILE_READ'. */
  scope: string;
}

/** What the server remembers about one browser. */
export interface Session {
  pending?: { verifier: string; state: string; nonce: string };
  signedIn?: SignedIn;
}

export interface SignedIn {
  sub: string;
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export async function discover(settings: WebAppSettings): Promise<client.Configuration> {
  // Plain http is accepted for a local development server only.
  const execute = new URL(settings.issuer).protocol === 'http:' ? [client.allowInsecureRequests] : [];
  // Reads /.well-known/openid-configuration.
  return client.discovery(
    new URL(settings.issuer),
    settings.clientId,
    undefined,
    client.ClientSecretBasic(settings.clientSecret),
    { execute },
  );
}

/** The authorization URL to send the browser to; `pending` goes into the session. */
export async function startSignIn(config: client.Configuration, settings: WebAppSettings) {
  const pending = {
    verifier: client.randomPKCECodeVerifier(),
    state: client.randomState(),
    nonce: client.randomNonce(),
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: settings.redirectUri,
    scope: settings.scope,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
  });
  return { url, pending };
}

/** Exchanges the code the browser came back with; checks state, nonce, `iss` and the ID token. */
export async function finishSignIn(
  config: client.Configuration,
  pending: NonNullable<Session['pending']>,
  callbackUrl: URL,
): Promise<SignedIn> {
  const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: pending.verifier,
    expectedState: pending.state,
    expectedNonce: pending.nonce,
    idTokenExpected: true,
  });
  return {
    sub: tokens.claims()!.sub,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token!,
    expiresAt: Date.now() + (tokens.expiresIn() ?? 0) * 1000,
  };
}

/** A usable access token: refreshed when it has less than a minute left (the refresh token rotates). */
export async function accessToken(config: client.Configuration, signedIn: SignedIn): Promise<string> {
  if (signedIn.expiresAt - Date.now() > 60_000) return signedIn.accessToken;
  const tokens = await client.refreshTokenGrant(config, signedIn.refreshToken);
  signedIn.accessToken = tokens.access_token;
  signedIn.refreshToken = tokens.refresh_token!;
  signedIn.expiresAt = Date.now() + (tokens.expiresIn() ?? 0) * 1000;
  return signedIn.accessToken;
}

/** GET on the resource API with the user's access token. */
export async function callApi(
  config: client.Configuration,
  settings: WebAppSettings,
  signedIn: SignedIn,
  path: string,
): Promise<unknown> {
  const response = await fetch(new URL(path, settings.apiBase), {
    headers: { authorization: `Bearer ${await accessToken(config, signedIn)}` },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The app: GET /login, GET /callback, and GET / showing who is signed in. */
export function createWebApp(config: client.Configuration, settings: WebAppSettings): Server {
  const sessions = new Map<string, Session>();
  const secure = new URL(settings.redirectUri).protocol === 'https:';

  function sessionOf(req: IncomingMessage, res: ServerResponse): Session {
    const id = /(?:^|;\s*)sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (id && sessions.has(id)) return sessions.get(id)!;
    const fresh = randomUUID();
    sessions.set(fresh, {});
    res.setHeader('set-cookie', `sid=${fresh}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
    return sessions.get(fresh)!;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const session = sessionOf(req, res);
    const url = new URL(req.url ?? '/', settings.redirectUri);
    if (url.pathname === '/login') {
      const { url: authorizationUrl, pending } = await startSignIn(config, settings);
      session.pending = pending;
      res.writeHead(302, { location: authorizationUrl.href }).end();
    } else if (url.pathname === new URL(settings.redirectUri).pathname) {
      if (!session.pending) return void res.writeHead(400).end('No sign-in in progress');
      const pending = session.pending;
      delete session.pending;
      session.signedIn = await finishSignIn(config, pending, url);
      res.writeHead(302, { location: '/' }).end();
    } else if (url.pathname === '/') {
      if (!session.signedIn) return void res.writeHead(200).end('<a href="/login">Sign in</a>');
      const token = await accessToken(config, session.signedIn);
      const profile = await client.fetchUserInfo(config, token, session.signedIn.sub);
      const me = await callApi(config, settings, session.signedIn, '/v2/me');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ profile, me }));
    } else {
      res.writeHead(404).end();
    }
  }

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // An error answer from the server (invalid_grant, ...) lands here: sign in again.
      res.writeHead(500).end(error instanceof Error ? error.message : 'error');
    });
  });
}
