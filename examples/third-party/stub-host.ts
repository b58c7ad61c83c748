/**
 * A STAND-IN for the scheduling service's side of the embed protocol: the smallest server that
 * speaks the protocol of shared/onboarding-embed/README.md, so the example page (and the component's
 * browser test) can run before the real authorization server's embed pages exist. It is not the
 * onboarding flow: there is no sign-up, no session, no consent screen worth the name, and it trusts
 * one fixed client. The real pages live in services/auth under /auth/embed/...
 *
 *   node_modules/.bin/node examples/third-party/stub-host.ts        # http://localhost:3999
 *   SCHED_HOST=http://localhost:3999 CLIENT_ID=stub-client node_modules/.bin/node examples/third-party/server.ts
 *
 * What it does, as the real server must:
 * - GET /auth/embed/onboarding checks client_id, redirect_uri (registered) and parent_origin (the
 *   origin of a registered redirect URI), sends `frame-ancestors` naming only those origins, and
 *   renders a page that posts the protocol's messages to `parent_origin` exactly (never '*'): to
 *   window.parent in the iframe, to window.opener when mode=popup.
 * - POST /v2/auth/oauth2/token checks the code, redirect_uri and the PKCE S256 verifier.
 * - GET /v2/me answers for the token it issued.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubHostOptions {
  port: number;
  clientId: string;
  /** Registered redirect URIs; their origins may frame the embed pages. */
  redirectUris: string[];
}

export interface RunningStubHost {
  /** e.g. http://localhost:3999 */
  url: string;
  /** Lets a caller register the example's redirect URI once it knows its port. */
  redirectUris: string[];
  close(): Promise<void>;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string | null;
  scope: string;
}

const USER = {
  id: 1,
  email: 'ada@example.com',
  username: 'ada',
  name: 'Ada Lovelace',
  timeZone: 'Europe/London',
  weekStart: 'Monday',
};

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function base64url(buffer: Buffer): string {
  return buffer.toString('base64url');
}

function errorPage(res: ServerResponse, message: string): void {
  res.writeHead(400, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "frame-ancestors 'none'",
  });
  res.end(`<!doctype html><title>Error</title><p>${escapeHtml(message)}</p>`);
}

function embedPage(params: {
  parentOrigin: string;
  mode: 'iframe' | 'popup';
  state: string;
  code: string;
  theme: string;
  clientId: string;
  scope: string;
  issuer: string;
  email: string;
}): string {
  const dark = params.theme === 'dark';
  return `<!doctype html>
<html lang="en" style="color-scheme: ${dark ? 'dark' : 'light'}">
<head>
<meta charset="utf-8">
<title>Authorize (stub)</title>
<style>
  body { margin: 0; padding: 28px; font: 15px/1.5 system-ui, sans-serif;
    background: ${dark ? '#0f172a' : '#ffffff'}; color: ${dark ? '#e2e8f0' : '#0f172a'}; }
  h1 { font-size: 20px; margin: 0 0 6px; }
  .muted { opacity: .7; font-size: 13px; }
  ul { padding-left: 18px; }
  .actions { display: flex; gap: 10px; margin-top: 22px; flex-wrap: wrap; }
  button { font: inherit; font-weight: 600; padding: 9px 16px; border-radius: 9px; border: 1px solid #94a3b8; background: transparent; color: inherit; cursor: pointer; }
  button.primary { background: #4f46e5; border-color: #4f46e5; color: #fff; }
  .stub { margin-top: 26px; padding-top: 14px; border-top: 1px dashed #94a3b8; }
</style>
</head>
<body>
<h1>Allow access to your Scheduling account?</h1>
<p class="muted">Stub page: stands in for sign-up, onboarding and consent${params.email ? ` (prefilled ${escapeHtml(params.email)})` : ''}.</p>
<p>Client <strong>${escapeHtml(params.clientId)}</strong> asks for:</p>
<ul>${params.scope
    .split(' ')
    .map((s) => `<li>${escapeHtml(s)}</li>`)
    .join('')}</ul>
<div class="actions">
  <button type="button" class="primary" id="allow">Allow</button>
  <button type="button" id="deny">Deny</button>
  <button type="button" id="cancel">Cancel</button>
</div>
<div class="stub">
  <p class="muted">Protocol switches of the stub:</p>
  <div class="actions">
    <button type="button" id="needs-popup">Pretend cookies are blocked</button>
    <button type="button" id="fail">Report an error</button>
  </div>
</div>
<script>
  const P = ${scriptJson(params)};
  // Exactly parent_origin, never '*': a page at another origin gets nothing.
  const target = P.mode === 'popup' ? window.opener : window.parent;
  function post(message) { if (target) target.postMessage(message, P.parentOrigin); }
  function finish(message) { post(message); if (P.mode === 'popup') window.close(); }
  document.getElementById('allow').onclick = () =>
    finish({ type: 'authorization:allowed', code: P.code, state: P.state, iss: P.issuer });
  document.getElementById('deny').onclick = () => finish({ type: 'authorization:denied', state: P.state, iss: P.issuer });
  document.getElementById('cancel').onclick = () => finish({ type: 'onboarding:close' });
  document.getElementById('needs-popup').onclick = () => post({ type: 'onboarding:needs-popup' });
  document.getElementById('fail').onclick = () =>
    post({ type: 'onboarding:error', code: 'SIGNUP_FAILED', message: 'Stub: this e-mail is already registered' });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') finish({ type: 'onboarding:close' }); });
  post({ type: 'onboarding:ready' });
</script>
</body>
</html>
`;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    return new URLSearchParams(JSON.parse(text || '{}') as Record<string, string>);
  }
  return new URLSearchParams(text);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export async function startStubHost(options: StubHostOptions): Promise<RunningStubHost> {
  const codes = new Map<string, IssuedCode>();
  const tokens = new Set<string>();
  const redirectUris = [...options.redirectUris];
  let origin = '';

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    if (req.method === 'GET' && url.pathname === '/auth/embed/onboarding') {
      const q = url.searchParams;
      const clientId = q.get('client_id') ?? '';
      const redirectUri = q.get('redirect_uri') ?? '';
      const parentOrigin = q.get('parent_origin') ?? '';
      const registeredOrigins = redirectUris.map((u) => new URL(u).origin);
      if (clientId !== options.clientId) return errorPage(res, 'Unknown client_id.');
      if (!redirectUris.includes(redirectUri))
        return errorPage(res, 'redirect_uri is not registered for this client.');
      if (!registeredOrigins.includes(parentOrigin))
        return errorPage(res, 'parent_origin is not a registered origin.');
      const challenge = q.get('code_challenge');
      if (challenge && q.get('code_challenge_method') !== 'S256')
        return errorPage(res, 'Only S256 is accepted.');
      const code = base64url(randomBytes(24));
      const scope = q.get('scope') ?? '';
      codes.set(code, { clientId, redirectUri, challenge, scope });
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `frame-ancestors ${[...new Set(registeredOrigins)].join(' ')}`,
        'cache-control': 'no-store',
      });
      res.end(
        embedPage({
          parentOrigin,
          mode: q.get('mode') === 'popup' ? 'popup' : 'iframe',
          state: q.get('state') ?? '',
          code,
          theme: q.get('theme') === 'dark' ? 'dark' : 'light',
          clientId,
          scope,
          issuer: origin,
          email: q.get('prefill_email') ?? '',
        }),
      );
      return;
    }
    if (req.method === 'POST' && url.pathname === '/v2/auth/oauth2/token') {
      const form = await readForm(req);
      const issued = codes.get(form.get('code') ?? '');
      if (form.get('grant_type') !== 'authorization_code') {
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (!issued || issued.clientId !== form.get('client_id')) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'code_invalid_or_expired' });
      }
      codes.delete(form.get('code') ?? '');
      if (issued.redirectUri !== form.get('redirect_uri')) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri_mismatch' });
      }
      const verifier = form.get('code_verifier') ?? '';
      if (
        issued.challenge &&
        base64url(createHash('sha256').update(verifier).digest()) !== issued.challenge
      ) {
        return json(res, 400, { error: 'invalid_grant', error_description: 'pkce_verification_failed' });
      }
      const accessToken = base64url(randomBytes(32));
      tokens.add(accessToken);
      return json(res, 200, {
        access_token: accessToken,
        refresh_token: base64url(randomBytes(32)),
        token_type: 'bearer',
        expires_in: 1800,
        scope: issued.scope,
      });
    }
    if (req.method === 'GET' && url.pathname === '/v2/me') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !tokens.has(token))
        return json(res, 401, { status: 'error', error: { code: 'Unauthorized' } });
      return json(res, 200, { status: 'success', data: USER });
    }
    json(res, 404, { error: 'not found' });
  };

  const server: Server = createServer((req, res) => {
    handler(req, res).catch((error: Error) => {
      if (!res.headersSent) json(res, 500, { error: error.message });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // All interfaces: browsers may resolve localhost to ::1 or 127.0.0.1.
    server.listen(options.port, () => resolve());
  });
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    redirectUris,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const port = Number(process.env.PORT ?? 3999);
  const example = process.env.EXAMPLE_ORIGIN ?? 'http://127.0.0.1:4000';
  startStubHost({
    port,
    clientId: process.env.CLIENT_ID ?? 'stub-client',
    redirectUris: [`${example}/callback`],
  }).then((running) => {
    console.log(`Stub scheduling host (embed protocol only): ${running.url}`);
    console.log(
      `  client_id ${process.env.CLIENT_ID ?? 'stub-client'}, redirect URI ${running.redirectUris[0]}`,
    );
  });
}
