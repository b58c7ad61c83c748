import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny stand-in for Google on a loopback port, for the flows a browser drives (nock only sees
 * this process's requests, not Chromium's): the authorization endpoint approves at once (or
 * denies, `deny = true`) by redirecting to the redirect URI with a code and the state; the token
 * endpoint checks the code, the PKCE verifier (S256) and the client, and lists the scopes granted
 * (all those asked, or `grantOnly`, as Google's granular consent allows); the Calendar API answers
 * calendarList and freeBusy; the revocation endpoint records what it got. Shapes as Google's.
 * The system under test reaches it with OUTBOUND_PRIVATE_NETWORKS=allow (it is on loopback).
 */
export interface FakeGoogle {
  url: string;
  /** The env of the system under test that points Google's endpoints here. */
  env: Record<string, string>;
  /** The next authorization is denied (error=access_denied). */
  deny: boolean;
  /** The next authorization grants only these scopes (the user unticked the others); else all asked. */
  grantOnly: string[] | undefined;
  /** Query of each authorization request, in order. */
  authorizations: URLSearchParams[];
  /** Tokens revoked, in order. */
  revoked: string[];
  account: string;
  close(): Promise<void>;
}

const CLIENT_ID = 'fake-google-client.apps.googleusercontent.com';
const CLIENT_SECRET = 'fake-google-secret';

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeGoogle(account = 'ada@example.com'): Promise<FakeGoogle> {
  const codes = new Map<string, { challenge: string; redirectUri: string; scope: string }>();
  const accessTokens = new Set<string>();
  const fake: Omit<FakeGoogle, 'url' | 'env' | 'close'> = {
    deny: false,
    grantOnly: undefined,
    authorizations: [],
    revoked: [],
    account,
  };
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    if (request.method === 'GET' && url.pathname === '/o/oauth2/v2/auth') {
      const query = url.searchParams;
      fake.authorizations.push(query);
      const back = new URL(query.get('redirect_uri') ?? '');
      back.searchParams.set('state', query.get('state') ?? '');
      if (fake.deny) {
        fake.deny = false;
        back.searchParams.set('error', 'access_denied');
      } else {
        const code = `4/${randomBytes(12).toString('hex')}`;
        codes.set(code, {
          challenge: query.get('code_challenge') ?? '',
          redirectUri: back.origin + back.pathname,
          scope: fake.grantOnly ? fake.grantOnly.join(' ') : (query.get('scope') ?? ''),
        });
        fake.grantOnly = undefined;
        back.searchParams.set('code', code);
      }
      response.writeHead(302, { location: back.href });
      return response.end();
    }
    if (request.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(await body(request));
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET)
        return json(401, { error: 'invalid_client' });
      let scope = '';
      if (form.get('grant_type') === 'authorization_code') {
        const issued = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (
          !issued ||
          issued.redirectUri !== form.get('redirect_uri') ||
          createHash('sha256').update(verifier).digest('base64url') !== issued.challenge
        )
          return json(400, { error: 'invalid_grant', error_description: 'Bad Request' });
        scope = issued.scope;
      } else if (form.get('grant_type') !== 'refresh_token')
        return json(400, { error: 'unsupported_grant_type' });
      const accessToken = `ya29.${randomBytes(12).toString('hex')}`;
      accessTokens.add(accessToken);
      return json(200, {
        access_token: accessToken,
        expires_in: 3599,
        refresh_token: `1//${randomBytes(12).toString('hex')}`,
        ...(scope ? { scope } : {}),
        token_type: 'Bearer',
      });
    }
    if (request.method === 'POST' && url.pathname === '/revoke') {
      fake.revoked.push(new URLSearchParams(await body(request)).get('token') ?? '');
      return json(200, {});
    }
    if (url.pathname.startsWith('/calendar/v3/')) {
      const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!accessTokens.has(token)) return json(401, { error: { code: 401, status: 'UNAUTHENTICATED' } });
      if (url.pathname === '/calendar/v3/users/me/calendarList')
        return json(200, {
          kind: 'calendar#calendarList',
          items: [
            { id: fake.account, summary: fake.account, accessRole: 'owner', primary: true },
            { id: 'family@group.calendar.google.com', summary: 'Family', accessRole: 'reader' },
          ],
        });
      if (url.pathname === '/calendar/v3/freeBusy') {
        const query = JSON.parse(await body(request)) as { items: { id: string }[] };
        return json(200, {
          calendars: Object.fromEntries(query.items.map((item) => [item.id, { busy: [] }])),
        });
      }
    }
    json(404, { error: { code: 404, message: 'Not Found' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(fake, {
    url,
    env: {
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
      GOOGLE_AUTH_URL: `${url}/o/oauth2/v2/auth`,
      GOOGLE_TOKEN_URL: `${url}/token`,
      GOOGLE_CALENDAR_API_URL: `${url}/calendar/v3`,
      GOOGLE_REVOKE_URL: `${url}/revoke`,
      OUTBOUND_PRIVATE_NETWORKS: 'allow',
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
