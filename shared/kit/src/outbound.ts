import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isSpecialUseAddress } from './outbound-addresses.ts';

/**
 * The one way the servers fetch a URL someone else chose (CalDAV servers, calendar APIs, client
 * metadata documents). It cannot be turned against the operator's network: the address rule is
 * applied to the address actually connected to (at connect time, so a DNS answer cannot change
 * between the check and the connection), again at every redirect, and responses are capped in
 * size and time. It answers with a standard `Response`, so libraries that take a `fetch` use it.
 */

/** The target is not allowed: scheme, address or redirect rule. Nothing was sent to it. */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
  readonly reason: 'scheme' | 'address' | 'redirect' | 'url';
  constructor(reason: OutboundRefusedError['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The response broke a cap: longer than `timeoutMs` or bigger than `maxBytes`. */
export class OutboundLimitError extends Error {
  override name = 'OutboundLimitError';
  readonly limit: 'time' | 'size';
  constructor(limit: OutboundLimitError['limit'], message: string) {
    super(message);
    this.limit = limit;
  }
}

export interface OutboundOptions {
  /** OUTBOUND_PRIVATE_NETWORKS=allow: lifts the address rule and allows http. */
  allowPrivateNetworks: boolean;
  /** Refuse http URLs (unless private networks are allowed). Default true. */
  requireHttps?: boolean;
  /** Redirects followed; 0 makes any redirect an error. Default 3. */
  maxRedirects?: number;
  /** Cap on the response body. Default 1 MB. */
  maxBytes?: number;
  /** Cap on the whole exchange, redirects and body included. Default 3 s. */
  timeoutMs?: number;
  /** Sent when the caller sets none. */
  userAgent?: string;
  /** The address rule; the special-use ranges by default (tests stand a loopback address in for a public one). */
  refusesAddress?: (address: string) => boolean;
}

export type OutboundFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

/** A DNS lookup that hands the socket only addresses the rule allows. */
function guardedLookup(refuses: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter((entry) => !refuses(entry.address));
      if (allowed.length === 0) {
        const refused = new OutboundRefusedError('address', `${hostname} resolves to a special-use address`);
        return callback(refused as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

export function createOutboundFetch(options: OutboundOptions): OutboundFetch {
  const allowPrivate = options.allowPrivateNetworks;
  const requireHttps = options.requireHttps ?? true;
  const maxRedirects = options.maxRedirects ?? 3;
  const maxBytes = options.maxBytes ?? 1_000_000;
  const timeoutMs = options.timeoutMs ?? 3000;
  const refuses = options.refusesAddress ?? isSpecialUseAddress;
  const lookup = allowPrivate ? undefined : guardedLookup(refuses);
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, lookup } as ConstructorParameters<typeof HttpAgent>[0]),
    'https:': new HttpsAgent({ keepAlive: true, lookup } as ConstructorParameters<typeof HttpsAgent>[0]),
  };

  function checkTarget(url: URL): void {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new OutboundRefusedError('scheme', `${url.protocol} URLs are not fetched`);
    }
    if (url.protocol === 'http:' && requireHttps && !allowPrivate) {
      throw new OutboundRefusedError('scheme', 'only https URLs are fetched');
    }
    if (url.username || url.password) {
      throw new OutboundRefusedError('url', 'URLs with credentials are not fetched');
    }
    // Literal addresses never reach the DNS lookup, so they are checked here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && isIP(host) !== 0 && refuses(host)) {
      throw new OutboundRefusedError('address', `${host} is a special-use address`);
    }
  }

  return async function outboundFetch(input, init = {}) {
    const request = input instanceof Request ? input : undefined;
    let url = new URL(request ? request.url : String(input));
    let method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers ?? request?.headers);
    if (!headers.has('user-agent')) headers.set('user-agent', options.userAgent ?? 'sched-oauth');
    let body = await encodeBody(init.body ?? (request ? await request.arrayBuffer() : undefined), headers);
    // As fetch does: `manual` hands the redirect itself back (RFC 6764 discovery reads the
    // Location of /.well-known/caldav), `error` refuses it; the caller's next request is checked anew.
    const redirectMode = init.redirect ?? request?.redirect ?? 'follow';

    const signal = init.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
      : AbortSignal.timeout(timeoutMs);

    for (let redirects = 0; ; redirects += 1) {
      checkTarget(url);
      const response = await exchange(url, method, headers, body, signal);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined || redirectMode === 'manual') {
        return toResponse(response, maxBytes, signal, timeoutMs);
      }
      response.resume();
      if (redirectMode === 'error') throw new OutboundRefusedError('redirect', 'redirects are not followed');
      if (redirects >= maxRedirects) {
        throw new OutboundRefusedError(
          'redirect',
          maxRedirects === 0 ? 'redirects are not followed' : 'too many redirects',
        );
      }
      const next = new URL(location, url);
      if (next.origin !== url.origin) headers.delete('authorization');
      const status = response.statusCode!;
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      url = next;
    }
  };

  function exchange(
    url: URL,
    method: string,
    headers: Headers,
    body: Buffer | undefined,
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = send(url, {
        method,
        headers: Object.fromEntries(headers),
        agent: agents[url.protocol as 'http:' | 'https:'],
        lookup,
        signal,
      });
      outgoing.once('response', resolve);
      outgoing.once('error', (error) => reject(translate(error, signal, timeoutMs)));
      outgoing.end(body);
    });
  }
}

async function encodeBody(body: BodyInit | ArrayBuffer | undefined | null, headers: Headers) {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) {
    if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded');
    return Buffer.from(body.toString());
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(await new Response(body).arrayBuffer());
}

function translate(error: Error, signal: AbortSignal, timeoutMs: number): Error {
  if (error instanceof OutboundRefusedError) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof OutboundRefusedError) return cause;
  if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError') {
    return new OutboundLimitError('time', `no complete answer within ${timeoutMs} ms`);
  }
  return error;
}

async function toResponse(
  incoming: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
  timeoutMs: number,
) {
  const declared = Number(incoming.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    incoming.destroy();
    throw new OutboundLimitError('size', `the answer is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.destroy();
        throw new OutboundLimitError('size', `the answer is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof OutboundLimitError) throw error;
    throw translate(error as Error, signal, timeoutMs);
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const status = incoming.statusCode ?? 502;
  return new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), {
    status,
    statusText: incoming.statusMessage,
    headers,
  });
}
