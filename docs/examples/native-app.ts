// A native (desktop or command-line) app: a public client registered with the redirect URI
// http://127.0.0.1/callback. It listens on a free port of the loopback interface, sends the
// user's browser to the authorization URL with that port in the redirect URI (RFC 8252 §7.3;
// the server accepts any port there), and exchanges the code that arrives, with oauth4webapi.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';

export interface NativeSettings {
  issuer: string;
  clientId: string;
  scope: string;
}

/** Opens the system browser (macOS, Windows, or xdg-open elsewhere). */
export function openSystemBrowser(url: URL): void {
  const [command, ...args] =
    process.platform === 'darwin'
      ? ['open']
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""']
        : ['xdg-open'];
  spawn(command!, [...args, url.href], { stdio: 'ignore', detached: true }).unref();
}

export async function signInFromNativeApp(
  settings: NativeSettings,
  openBrowser: (url: URL) => void | Promise<void> = openSystemBrowser,
  timeoutMs = 5 * 60_000,
): Promise<oauth.TokenEndpointResponse> {
  const issuer = new URL(settings.issuer);
  const options = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
  const client: oauth.Client = { client_id: settings.clientId };

  // Port 0: the system picks a free one. Listen on 127.0.0.1 only, never on every interface.
  let arrived!: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => {
    arrived = resolve;
  });
  const listener = createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Signed in</title><p>You can close this window.</p>');
    arrived(url);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;

  try {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: settings.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: settings.scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    await openBrowser(url);

    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('sign-in timed out')), timeoutMs);
    });
    const currentUrl = await Promise.race([callback, timeout]).finally(() => clearTimeout(timer));

    const params = oauth.validateAuthResponse(as, client, currentUrl, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      options,
    );
    return await oauth.processAuthorizationCodeResponse(as, client, response);
  } finally {
    listener.closeAllConnections();
    listener.close();
  }
}
