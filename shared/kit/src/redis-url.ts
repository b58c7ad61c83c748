/**
 * The three forms of REDIS_URL (docs/redis.md "REDIS_URL"), read into what a client needs:
 *
 *   redis://[user:password@]host[:port][/db]            one node (rediss:// for TLS)
 *   redis+sentinel://[user:password@]host[:port],host[:port]/masterName[/db][?sentinelPassword=p]
 *                                                        Sentinel: the sentinels (port 26379 by
 *                                                        default) and the name of the master set;
 *                                                        the credentials are the data nodes'
 *   redis+cluster://[user:password@]host[:port],host[:port]
 *                                                        Cluster: some seed nodes (6379 by default);
 *                                                        no database number (a cluster has only 0)
 *
 * Pure parsing (no client): config.ts validates with it at start-up, the data layer builds its
 * client from the result.
 */

export interface HostPort {
  host: string;
  port: number;
}

export type RedisTarget =
  | { kind: 'single'; url: string; host: string; port: number; db: number }
  | {
      kind: 'sentinel';
      sentinels: HostPort[];
      masterName: string;
      db: number;
      username?: string;
      password?: string;
      sentinelPassword?: string;
    }
  | { kind: 'cluster'; nodes: HostPort[]; username?: string; password?: string };

/** A REDIS_URL that cannot be used; the message says what is wrong, never the password. */
export class RedisUrlError extends Error {
  override name = 'RedisUrlError';
}

// Schemes are case-insensitive (RFC 3986 3.1), as they are for redis:// through URL.
const MULTI_HOST = /^(redis\+sentinel|redis\+cluster):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/i;
const DB = /^\d{1,2}$/;

function hostPort(text: string, defaultPort: number): HostPort {
  // [v6]:port or host:port; the host part is what a socket connect takes. Underscores as in
  // redis:// (and in Docker Compose service names, which Docker's DNS resolves).
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/.exec(text);
  const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
  if (!match || port < 1 || port > 65535) {
    throw new RedisUrlError(`'${text}' is not a host[:port]`);
  }
  return { host: (match[1] ?? match[2])!, port };
}

/** Percent-decodes a part of the URL; malformed escapes are a RedisUrlError naming `what`. */
function decodePart(value: string, what: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new RedisUrlError(`${what} not valid percent-encoding`);
  }
}

function credentials(userinfo: string | undefined): { username?: string; password?: string } {
  if (!userinfo) return {};
  const colon = userinfo.indexOf(':');
  const decode = (value: string) => decodePart(value, 'the credentials are');
  const username = decode(colon === -1 ? userinfo : userinfo.slice(0, colon));
  const password = colon === -1 ? undefined : decode(userinfo.slice(colon + 1));
  return {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
  };
}

function parseSingle(url: string): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RedisUrlError('is not a URL');
  }
  const path = parsed.pathname.replace(/^\//, '');
  if (path !== '' && !DB.test(path)) throw new RedisUrlError(`'/${path}' is not a database number`);
  if (!parsed.hostname) throw new RedisUrlError('names no host');
  return {
    kind: 'single',
    url,
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 6379,
    db: path === '' ? 0 : Number(path),
  };
}

/** Reads a REDIS_URL; throws a RedisUrlError naming the problem. */
export function parseRedisUrl(url: string): RedisTarget {
  const scheme = /^([a-z+]+):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'redis' || scheme === 'rediss') return parseSingle(url);
  const match = MULTI_HOST.exec(url);
  if (!match) {
    throw new RedisUrlError(
      scheme === 'redis+sentinel' || scheme === 'redis+cluster'
        ? 'is not a valid URL'
        : 'must start with redis://, rediss://, redis+sentinel:// or redis+cluster://',
    );
  }
  const [, kind, userinfo, hostList, path = '', query = ''] = match;
  const sentinel = kind!.toLowerCase() === 'redis+sentinel';
  const hosts = hostList!.split(',').map((text) => hostPort(text.trim(), sentinel ? 26379 : 6379));
  if (hosts.length === 0 || hostList === '') throw new RedisUrlError('names no host');
  const params = new URLSearchParams(query.slice(1));
  const allowed = sentinel ? ['sentinelPassword'] : [];
  for (const name of params.keys()) {
    if (!allowed.includes(name)) throw new RedisUrlError(`does not take the parameter '${name}'`);
  }
  const auth = credentials(userinfo);
  const segments = path.split('/').filter((segment) => segment !== '');
  if (!sentinel) {
    if (segments.length > 0)
      throw new RedisUrlError('a cluster URL takes no path (a cluster has database 0 only)');
    return { kind: 'cluster', nodes: hosts, ...auth };
  }
  const [masterName, db, ...rest] = segments.map((segment) => decodePart(segment, 'the path is'));
  if (!masterName) throw new RedisUrlError('names no master set (redis+sentinel://host:port/masterName)');
  if (rest.length > 0 || (db !== undefined && !DB.test(db))) {
    throw new RedisUrlError('the path is /masterName or /masterName/db');
  }
  const sentinelPassword = params.get('sentinelPassword') ?? undefined;
  return {
    kind: 'sentinel',
    sentinels: hosts,
    masterName,
    db: db === undefined ? 0 : Number(db),
    ...auth,
    ...(sentinelPassword ? { sentinelPassword } : {}),
  };
}

/** Where a target points, for logs and errors (no credentials). */
export function describeTarget(target: RedisTarget): string {
  const list = (hosts: HostPort[]) =>
    hosts.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  switch (target.kind) {
    case 'single':
      return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}${target.db ? `/${target.db}` : ''}`;
    case 'sentinel':
      return `sentinel master '${target.masterName}' via ${list(target.sentinels)}${target.db ? ` db ${target.db}` : ''}`;
    case 'cluster':
      return `cluster via ${list(target.nodes)}`;
  }
}
