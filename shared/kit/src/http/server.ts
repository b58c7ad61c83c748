import { constantTimeEqual } from '../secrets.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, Server as NetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../logger.ts';
import { enableProcessMetrics, renderMetrics } from './metrics.ts';
import { newRequestId, requestIdFrom } from './request-context.ts';
import { securityHeaderList } from './security-headers.ts';
import { APP_VERSION } from '../version.ts';

/** `GET /health/alive`: the process is up, and which version it runs (read once at start-up). */
const ALIVE = Object.freeze({ status: 'ok', version: APP_VERSION });

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ReadinessCheck {
  name: string;
  check: () => Promise<unknown>;
}

export interface ServiceServerOptions {
  name: string;
  port: number;
  host: string;
  logger: Logger;
  handler: RequestHandler;
  checks: ReadinessCheck[];
  /** Closes what the service opened (pools, clients) after the last request finished. */
  onClose: () => Promise<void>;
  shutdownTimeoutMs: number;
  /**
   * On close, idle keep-alive connections are left to their client this long (default 0: closed
   * at once). Behind a gateway that pools connections, closing an idle one races a request the
   * gateway is sending on it, which it cannot replay when it is a POST; the gateway closes its
   * idle ones itself first (deploy/nginx.conf: keepalive_timeout 4 s, below this server's 5 s).
   */
  idleGraceMs?: number;
  /** `/metrics`: off (the service's own 404), or on, behind a bearer token when one is set. */
  metrics?: { enabled: boolean; token: string | undefined };
  /**
   * The configured public URLs (APP_URL, BASE_URL). The server's own answers (health, metrics,
   * the parser's refusals) carry the apps' security headers, HSTS when one is https (default: none
   * given, plain http).
   */
  publicUrls?: readonly string[];
}

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

type HeaderList = ReadonlyArray<readonly [string, string]>;

/**
 * What the server answers itself never passes through the apps' middleware, so it sets what they
 * would: the security headers and an X-Request-Id (the request's when valid, else a fresh one).
 */
function setOwnHeaders(req: IncomingMessage, res: ServerResponse, headers: HeaderList): ServerResponse {
  for (const [name, value] of headers) res.setHeader(name, value);
  res.setHeader('X-Request-Id', requestIdFrom(req.headers['x-request-id']));
  return res;
}

/** The same headers as raw header lines, for an answer written on the socket (a fresh id each). */
function ownHeaderLines(headers: HeaderList): string {
  let lines = '';
  for (const [name, value] of headers) lines += `${name}: ${value}\r\n`;
  return `${lines}X-Request-Id: ${newRequestId()}\r\n`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** With a METRICS_TOKEN, `/metrics` needs it as a bearer token (compared in constant time). */
function metricsAllowed(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  return constantTimeEqual(req.headers.authorization ?? '', `Bearer ${token}`);
}

/** What Node's HTTP parser refuses before any handler runs, answered in the error envelope. */
const CLIENT_ERRORS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'RequestHeaderFieldsTooLarge',
    message: 'Request headers are larger than the server accepts (16 KiB in all)',
  },
};
const MALFORMED = {
  status: 400,
  reason: 'Bad Request',
  code: 'BadRequest',
  message: 'Malformed HTTP request',
};

/** The request target of the request line Node kept (`rawPacket`), if it parses. */
function targetOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '';
  const line = rawPacket.subarray(0, 2048).toString('latin1').split('\r\n', 1)[0] ?? '';
  const target = line.split(' ')[1] ?? '';
  const path = target.split('?', 1)[0] ?? '';
  return /^\/[\x21-\x7e]*$/.test(path) ? path : '';
}

/**
 * Node answers a request its parser refuses (headers over the limit, a broken request line) with
 * a bare status line. This answers in the API's error envelope instead, then closes the connection.
 */
function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Duplex,
  headers: HeaderList,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const answer = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({
    status: 'error',
    timestamp: new Date().toISOString(),
    path: targetOf(error.rawPacket),
    error: { code: answer.code, message: answer.message },
  });
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\nConnection: close\r\n' +
      ownHeaderLines(headers) +
      '\r\n' +
      body,
  );
}

/** Runs each readiness check with a deadline; a failed one is named, its reason logged, not exposed. */
export async function runReadinessChecks(checks: ReadinessCheck[], logger: Logger) {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS);
        return [name, 'ok'] as const;
      } catch (error) {
        logger.warn({ check: name, err: error }, 'readiness check failed');
        return [name, 'fail'] as const;
      }
    }),
  );
  return { ok: results.every(([, state]) => state === 'ok'), checks: Object.fromEntries(results) };
}

/**
 * An HTTP server with health, metrics and graceful shutdown in front of a service's handler.
 * On close: readiness turns 503, no new connections are accepted, in-flight requests finish
 * (up to the timeout), then onClose releases the service's resources.
 */
export async function startServiceServer(options: ServiceServerOptions): Promise<RunningServer> {
  enableProcessMetrics();
  let draining = false;
  const ownHeaders = securityHeaderList(options.publicUrls ?? []);

  const server = createServer((req, res) => {
    if (draining) res.setHeader('Connection', 'close');
    if (req.method === 'GET' || req.method === 'HEAD') {
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const path = query === -1 ? url : url.slice(0, query);
      if (path === '/health/alive') return sendJson(setOwnHeaders(req, res, ownHeaders), 200, ALIVE);
      if (path === '/health/ready') {
        setOwnHeaders(req, res, ownHeaders);
        if (draining) return sendJson(res, 503, { status: 'draining', checks: {} });
        runReadinessChecks(options.checks, options.logger).then(
          (result) =>
            sendJson(res, result.ok ? 200 : 503, {
              status: result.ok ? 'ok' : 'unavailable',
              checks: result.checks,
            }),
          () => sendJson(res, 503, { status: 'unavailable', checks: {} }),
        );
        return;
      }
      if (path === '/metrics' && (options.metrics?.enabled ?? true)) {
        setOwnHeaders(req, res, ownHeaders);
        if (!metricsAllowed(req, options.metrics?.token)) {
          res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': 'Bearer' });
          res.end('metrics need the bearer token (METRICS_TOKEN)\n');
          return;
        }
        renderMetrics().then(
          ({ contentType, body }) => {
            res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
            res.end(body);
          },
          (error) => {
            options.logger.error({ err: error }, 'metrics rendering failed');
            res.writeHead(500).end();
          },
        );
        return;
      }
    }
    options.handler(req, res);
  });
  server.on('clientError', (error, socket) => answerClientError(error, socket, ownHeaders));
  // Slow-loris and idle keep-alive bounds; Node's defaults are generous.
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  const url = `http://${shownHost}:${address.port}`;

  let closing: Promise<void> | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const close = () => {
    closing ??= (async () => {
      draining = true;
      // From now on every answer says `Connection: close`, so a connection in use ends after its
      // next response, which a client never mistakes for a failure.
      const drained = new Promise<void>((resolve) => {
        if (!options.idleGraceMs) {
          server.close(() => resolve());
          server.closeIdleConnections();
          return;
        }
        // net.Server's close stops accepting connections and leaves the open ones alone (Node's
        // http.Server.close would also drop the idle ones at once).
        NetServer.prototype.close.call(server, () => resolve());
        idleTimer = setTimeout(() => server.closeIdleConnections(), options.idleGraceMs);
      });
      const timer = setTimeout(() => {
        options.logger.warn('shutdown timeout reached; closing remaining connections');
        server.closeAllConnections();
      }, options.shutdownTimeoutMs);
      await drained;
      clearTimeout(timer);
      clearTimeout(idleTimer);
      await options.onClose();
    })();
    return closing;
  };

  return { server, url, close };
}

/** SIGTERM / SIGINT: drain, close, exit. A second signal exits at once. */
export function exitOnSignals(close: () => Promise<void>, logger: Logger): void {
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) process.exit(1);
    received = true;
    logger.info({ signal }, 'shutting down');
    close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
