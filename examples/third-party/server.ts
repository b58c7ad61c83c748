/**
 * An example third-party site ("Acme Bookings") that embeds <OnboardingEmbed />.
 *
 *   npm run build -w @sched/onboarding-embed
 *   CLIENT_ID=<your client id> node_modules/.bin/node examples/third-party/server.ts
 *
 * It serves, with no bundler and no network:
 *   /                 the page (both modes), loading React and the component through an import map
 *   /callback         the redirect-mode landing page
 *   /embed/*          the component's ESM build (shared/onboarding-embed/dist)
 *   /vendor/*.js      React, React DOM and the JSX runtime as ES modules, made at start-up with esbuild
 *                     from node_modules (React ships CommonJS only)
 *   POST /exchange    the site's back end: trades the code (+ PKCE verifier) for tokens at the
 *                     scheduling service and calls GET /v2/me with the access token
 * See README.md beside this file.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = new URL('./', import.meta.url);
const PUBLIC = new URL('public/', HERE);
const DIST = new URL('../../shared/onboarding-embed/dist/', HERE);
const require = createRequire(import.meta.url);

export interface ExampleOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Address to listen on, also the host name of the page's origin. */
  bind: string;
  /** The scheduling service's APP_URL (the component's `host`). */
  schedHost: string;
  /** The scheduling service's BASE_URL (the resource API); defaults to schedHost. */
  apiBase: string;
  clientId: string;
  /** Only for a confidential client; a public client uses PKCE alone. */
  clientSecret: string | undefined;
  scope: string[];
}

export interface RunningExample {
  /** Origin of the example page, e.g. http://127.0.0.1:4000 */
  url: string;
  redirectUri: string;
  close(): Promise<void>;
}

/** Specifiers the component and the page import, mapped to generated ES modules. */
const VENDOR = {
  react: 'react.js',
  'react/jsx-runtime': 'react-jsx-runtime.js',
  'react-dom': 'react-dom.js',
  'react-dom/client': 'react-dom-client.js',
} as const;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const RESERVED = new Set(['default', 'delete', 'new', 'class', 'function', 'export', 'import', 'in', 'of']);

/**
 * One esbuild bundle holding React, React DOM and the JSX runtime (so there is exactly one React),
 * plus one tiny ES module per specifier re-exporting its names from that bundle.
 */
async function buildVendor(): Promise<Map<string, string>> {
  const specifiers = Object.keys(VENDOR) as Array<keyof typeof VENDOR>;
  const entry = [
    ...specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`),
    `export const modules = { ${specifiers.map((s, i) => `${JSON.stringify(s)}: m${i}`).join(', ')} };`,
  ].join('\n');
  const result = await build({
    stdin: { contents: entry, resolveDir: fileURLToPath(HERE), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    define: { 'process.env.NODE_ENV': '"development"' },
    write: false,
    logLevel: 'silent',
  });
  const files = new Map<string, string>();
  files.set('react-bundle.js', result.outputFiles[0]?.text ?? '');
  for (const specifier of specifiers) {
    const names = Object.keys(require(specifier) as object).filter(
      (n) => IDENTIFIER.test(n) && !RESERVED.has(n),
    );
    files.set(
      VENDOR[specifier],
      [
        `import { modules } from './react-bundle.js';`,
        `const ns = modules[${JSON.stringify(specifier)}];`,
        'const mod = ns.default ?? ns;',
        'export default mod;',
        names.length > 0 ? `export const { ${names.join(', ')} } = mod;` : '',
      ].join('\n'),
    );
  }
  return files;
}

function importMap(): string {
  const imports: Record<string, string> = { '@sched/onboarding-embed': '/embed/index.js' };
  for (const [specifier, file] of Object.entries(VENDOR)) imports[specifier] = `/vendor/${file}`;
  return JSON.stringify({ imports }, null, 2);
}

/** JSON safe to put inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function page(title: string, script: string, config: unknown, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/example.css">
<script type="importmap">
${importMap()}
</script>
<script type="application/json" id="example-config">${scriptJson(config)}</script>
<script type="module" src="${script}"></script>
</head>
<body>
${body}
</body>
</html>
`;
}

const INDEX_BODY = `<header class="site-header">
  <span class="site-logo" aria-hidden="true">A</span>
  <span class="site-name">Acme Bookings</span>
  <span class="site-tag">example third-party site</span>
</header>
<main class="site-main">
  <h1>Let your customers book you, from your own calendar</h1>
  <p class="lead">This page embeds the scheduling service's <code>&lt;OnboardingEmbed /&gt;</code>. Sign up or sign in
  inside the dialog, finish onboarding, click <strong>Allow</strong>, and this site receives an authorization code.</p>
  <div id="app"><p>Loading the example…</p></div>
</main>`;

const CALLBACK_BODY = `<header class="site-header">
  <span class="site-logo" aria-hidden="true">A</span>
  <span class="site-name">Acme Bookings</span>
  <span class="site-tag">redirect-mode callback</span>
</header>
<main class="site-main">
  <h1>Back from the scheduling service</h1>
  <div id="callback"><p>Reading the response…</p></div>
  <p><a href="/">Back to the example</a></p>
</main>`;

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
}

function mask(token: unknown): string | undefined {
  return typeof token === 'string' ? `${token.slice(0, 6)}…(${token.length} characters)` : undefined;
}

/**
 * What a site's back end does with the code: the token request (the PKCE verifier proves this is
 * the party that started the flow), then one API call with the access token.
 */
async function exchange(options: ExampleOptions, redirectUri: string, body: Record<string, unknown>) {
  const code = typeof body.code === 'string' ? body.code : '';
  const verifier = typeof body.codeVerifier === 'string' ? body.codeVerifier : '';
  if (!code) return { ok: false, step: 'input', error: 'code is required' };
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: options.clientId || String(body.clientId ?? ''),
    code,
    redirect_uri: redirectUri,
  });
  if (verifier) form.set('code_verifier', verifier);
  if (options.clientSecret) form.set('client_secret', options.clientSecret);
  let tokenResponse: Response;
  try {
    tokenResponse = await fetch(`${options.schedHost.replace(/\/+$/, '')}/v2/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
    });
  } catch (error) {
    return {
      ok: false,
      step: 'token',
      error: `cannot reach ${options.schedHost}: ${(error as Error).message}`,
    };
  }
  const token = (await tokenResponse.json().catch(() => ({}))) as Record<string, unknown>;
  if (!tokenResponse.ok) return { ok: false, step: 'token', status: tokenResponse.status, body: token };
  const meResponse = await fetch(`${options.apiBase.replace(/\/+$/, '')}/v2/me`, {
    headers: { authorization: `Bearer ${String(token.access_token)}`, accept: 'application/json' },
  });
  const me = await meResponse.json().catch(() => null);
  return {
    ok: meResponse.ok,
    token: {
      token_type: token.token_type,
      expires_in: token.expires_in,
      scope: token.scope,
      access_token: mask(token.access_token),
      refresh_token: mask(token.refresh_token),
    },
    me: { status: meResponse.status, body: me },
  };
}

export async function startExample(options: ExampleOptions): Promise<RunningExample> {
  if (!existsSync(new URL('index.js', DIST))) {
    throw new Error('The component is not built: run `npm run build -w @sched/onboarding-embed` first.');
  }
  const vendor = await buildVendor();
  let origin = '';
  const redirectPath = '/callback';

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    const config = {
      host: options.schedHost,
      clientId: options.clientId,
      scope: options.scope,
      redirectUri: `${origin}${redirectPath}`,
    };
    if (req.method === 'GET' && url.pathname === '/') {
      return send(
        res,
        200,
        CONTENT_TYPES['.html']!,
        page('Acme Bookings: embed example', '/app.js', config, INDEX_BODY),
      );
    }
    if (req.method === 'GET' && url.pathname === redirectPath) {
      return send(
        res,
        200,
        CONTENT_TYPES['.html']!,
        page('Acme Bookings: callback', '/callback.js', config, CALLBACK_BODY),
      );
    }
    if (req.method === 'POST' && url.pathname === '/exchange') {
      try {
        const result = await exchange(options, config.redirectUri, await readJson(req));
        return send(res, 200, 'application/json', JSON.stringify(result));
      } catch (error) {
        return send(
          res,
          400,
          'application/json',
          JSON.stringify({ ok: false, error: (error as Error).message }),
        );
      }
    }
    if (req.method === 'GET' && url.pathname.startsWith('/vendor/')) {
      const file = vendor.get(url.pathname.slice('/vendor/'.length));
      if (file !== undefined) return send(res, 200, CONTENT_TYPES['.js']!, file);
    }
    const staticMatch = /^\/(embed\/)?([\w.-]+\.(js|css|map))$/.exec(url.pathname);
    if (req.method === 'GET' && staticMatch) {
      const [, embed, name, ext] = staticMatch;
      const base = embed ? DIST : PUBLIC;
      try {
        const body = await readFile(new URL(name!, base), 'utf8');
        return send(res, 200, CONTENT_TYPES[`.${ext}`]!, body);
      } catch {
        // fall through to 404
      }
    }
    send(res, 404, 'text/plain; charset=utf-8', 'not found');
  };

  const server: Server = createServer((req, res) => {
    handler(req, res).catch((error: Error) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', error.message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bind, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${options.bind.includes(':') ? `[${options.bind}]` : options.bind}:${port}`;
  return {
    url: origin,
    redirectUri: `${origin}${redirectPath}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function optionsFromEnv(env: NodeJS.ProcessEnv): ExampleOptions {
  const schedHost = env.SCHED_HOST ?? 'http://localhost:3000';
  return {
    port: Number(env.PORT ?? 4000),
    bind: env.BIND ?? '127.0.0.1',
    schedHost,
    apiBase: env.SCHED_API ?? schedHost,
    clientId: env.CLIENT_ID ?? '',
    clientSecret: env.CLIENT_SECRET || undefined,
    scope: (env.SCOPE ?? 'PROFILE_READ').split(/[\s,]+/).filter(Boolean),
  };
}

if (import.meta.main) {
  const options = optionsFromEnv(process.env);
  startExample(options).then(
    (running) => {
      console.log(`Example third-party site: ${running.url}/`);
      console.log(`  scheduling service (host): ${options.schedHost}`);
      console.log(`  register this redirect URI on your OAuth client: ${running.redirectUri}`);
      if (!options.clientId) console.log('  CLIENT_ID is not set: type the client id into the page.');
    },
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
