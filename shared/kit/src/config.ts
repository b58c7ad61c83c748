import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { parseRateLimits, type RateLimits } from './rate-limits.ts';
import { parseRedisUrl, RedisUrlError } from './redis-url.ts';

/** Raised when the environment is invalid; its message names the variable and says what is wrong. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const urlWithProtocols = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}` },
  );

/** AGENT_CLIENTS: how agent clients (client metadata documents, dynamic registration) are reviewed. */
export const AGENT_CLIENT_POLICIES = ['review', 'approved-only', 'off'] as const;
export type AgentClientPolicy = (typeof AGENT_CLIENT_POLICIES)[number];
const DEFAULT_AGENT_PENDING_SCOPES = ['PROFILE_READ', 'EVENT_TYPE_READ', 'SCHEDULE_READ', 'BOOKING_READ'];
const SCOPE_NAME = /^[A-Za-z_]+$/;
const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/**
 * APP_URL / BASE_URL: an origin, as the server pins requests to its host and builds every URL
 * (issuer, endpoints, links) as origin + absolute path; a path prefix, query, fragment or
 * credentials would give an issuer and links the routes do not serve (or that oidc-provider refuses).
 */
/** `address` or `Name <address>`: one line, an address with one @ (a host without dots is fine). */
const MAIL_FROM = /^(?:[^<>\p{Cc}]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/u;

const origin = urlWithProtocols(['http:', 'https:'])
  .refine(
    (value) => {
      const url = new URL(value);
      return /^\/*$/.test(url.pathname) && !value.includes('?') && !value.includes('#') && !url.username;
    },
    { message: 'must be an origin such as https://id.example.com (no path, query, fragment or user)' },
  )
  .transform((value) => value.replace(/\/+$/, ''));

/** A provider endpoint: http(s), no trailing slash (tests and proxies may use http on loopback). */
const httpsOrLoopbackUrl = urlWithProtocols(['http:', 'https:']).transform((value) =>
  value.replace(/\/+$/, ''),
);

/** A calendar provider our server is the OAuth client of. */
export interface GoogleProviderConfig {
  clientId: string;
  clientSecret: string;
  authUrl: string;
  tokenUrl: string;
  calendarApiUrl: string;
  revokeUrl: string;
}

export interface MicrosoftProviderConfig {
  clientId: string;
  clientSecret: string;
  /** e.g. https://login.microsoftonline.com/common: /oauth2/v2.0/authorize and /token below it. */
  authorityUrl: string;
  graphUrl: string;
}

/**
 * A whole number written in decimal digits, within bounds; one message for every way to miss.
 * (Number() would take 0x50, 1e3 or +80, which no operator means for a port or a duration.)
 */
const wholeNumber = (min: number, max: number, message: string) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, message)
    .transform(Number)
    .pipe(z.number().min(min, message).max(max, message));

/** A switch: true, false, 1 or 0. */
const booleanFlag = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1');

const EnvSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'], { message: 'must be development, test or production' })
    .default('development'),
  PORT: wholeNumber(0, 65535, 'must be a port number from 0 to 65535').default(3000),
  HOST: z.string().trim().min(1, 'must be an address or host name to listen on').default('0.0.0.0'),
  APP_URL: origin.optional(),
  BASE_URL: origin.optional(),
  DATABASE_URL: urlWithProtocols(['postgres:', 'postgresql:']).optional(),
  REDIS_URL: z
    .string()
    .superRefine((value, ctx) => {
      try {
        parseRedisUrl(value);
      } catch (error) {
        if (!(error instanceof RedisUrlError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
      }
    })
    .optional(),
  DATA_DIR: z
    .string()
    .refine((value) => value.trim() !== '', {
      message: 'is empty or only spaces: name the data folder, or leave it unset for ./.data',
    })
    .default('./.data'),
  SMTP_URL: urlWithProtocols(['smtp:', 'smtps:'])
    .refine((value) => new URL(value).hostname !== '', { message: 'names no host (smtp://host:port)' })
    .optional(),
  MAIL_FROM: z
    .string()
    .refine((value) => MAIL_FROM.test(value), {
      message: 'must be an e-mail address, with a name or without: Scheduling <no-reply@example.com>',
    })
    .default('Scheduling <no-reply@localhost>'),
  COOKIE_KEYS: z
    .string()
    .transform((value) => value.split(',').map((key) => key.trim()))
    .refine((keys) => keys.every((key) => key.length >= 32), {
      message: 'must be a comma-separated list of keys of at least 32 characters each',
    })
    .optional(),
  KEY_ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  ID_TOKEN_SIGNING_ALG: z.enum(['ES256', 'RS256'], { message: 'must be ES256 or RS256' }).default('ES256'),
  LOG_LEVEL: z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  TRUST_PROXY: booleanFlag.default(false),
  SHUTDOWN_TIMEOUT_MS: wholeNumber(
    0,
    600_000,
    'must be a whole number of milliseconds from 0 to 600000',
  ).default(10_000),
  REFRESH_REUSE_INTERVAL: wholeNumber(0, 300, 'must be a whole number of seconds from 0 to 300').default(10),
  SIGNUP_ENABLED: booleanFlag.default(true),
  RATE_LIMITS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseRateLimits(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  ACCESS_TOKEN_TTL: wholeNumber(60, 86_400, 'must be a whole number of seconds from 60 to 86400').default(
    1800,
  ),
  REFRESH_TOKEN_TTL: wholeNumber(
    3600,
    31_536_000,
    'must be a whole number of seconds from 3600 to 31536000',
  ).default(30 * 24 * 3600),
  ACCESS_LOG: booleanFlag.default(true),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  OUTBOUND_PRIVATE_NETWORKS: z
    .enum(['allow', 'deny'], { message: 'must be allow or deny' })
    .transform((value) => value === 'allow')
    .default(false),
  METRICS_ENABLED: booleanFlag.optional(),
  // Calendar providers: offered when the client id and secret are set; endpoints default to the
  // public ones (sovereign clouds and proxies override them).
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_AUTH_URL: httpsOrLoopbackUrl.default('https://accounts.google.com/o/oauth2/v2/auth'),
  GOOGLE_TOKEN_URL: httpsOrLoopbackUrl.default('https://oauth2.googleapis.com/token'),
  GOOGLE_CALENDAR_API_URL: httpsOrLoopbackUrl.default('https://www.googleapis.com/calendar/v3'),
  GOOGLE_REVOKE_URL: httpsOrLoopbackUrl.default('https://oauth2.googleapis.com/revoke'),
  MICROSOFT_CLIENT_ID: z.string().min(1).optional(),
  MICROSOFT_CLIENT_SECRET: z.string().min(1).optional(),
  MICROSOFT_AUTHORITY_URL: httpsOrLoopbackUrl.default('https://login.microsoftonline.com/common'),
  MICROSOFT_GRAPH_URL: httpsOrLoopbackUrl.default('https://graph.microsoft.com/v1.0'),
  AGENT_CLIENTS: z
    .enum(AGENT_CLIENT_POLICIES, { message: 'must be review, approved-only or off' })
    .default('review'),
  AGENT_PENDING_SCOPES: z
    .string()
    .transform((value) => value.split(/[\s,]+/).filter((scope) => scope !== ''))
    .refine((scopes) => scopes.every((scope) => SCOPE_NAME.test(scope)), {
      message: 'must be scope names separated by spaces or commas',
    })
    .default(DEFAULT_AGENT_PENDING_SCOPES),
  AGENT_TRUSTED_HOSTS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ''),
    )
    .refine((hosts) => hosts.every((host) => HOST_NAME.test(host)), {
      message: 'must be comma-separated host names (no scheme, port or path)',
    })
    .default([]),
  DCR_ENABLED: booleanFlag.default(false),
});

/**
 * Every environment variable `loadConfig` reads. README.md ("Configuration") and deploy/README.md
 * document each one (test/deploy/compose.test.ts holds them to it).
 */
/** The browser session at the authorization server, in seconds: no second sign-in for 14 days. */
export const SESSION_TTL = 14 * 24 * 3600;
/** An authorization code's lifetime, in seconds. */
export const AUTHORIZATION_CODE_TTL = 60;

/**
 * The longest any code, access or refresh token or browser session lives, in seconds: how long
 * the token store goes on looking for records written before their ids were hashed
 * (docs/token-store.md "Hashed ids").
 */
export function longestTokenLifetime(tokenTtl: Config['tokenTtl']): number {
  return Math.max(tokenTtl.accessToken, tokenTtl.refreshToken, SESSION_TTL, AUTHORIZATION_CODE_TTL);
}

export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(EnvSchema.shape));

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  /** Public origin of the browser pages (no trailing slash). */
  appUrl: string;
  /** Public origin of the API (no trailing slash). */
  baseUrl: string;
  /** Set: real Postgres. Unset: embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Set: token store and caches in Redis. Unset: kept in the database. */
  redisUrl: string | undefined;
  dataDir: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Undefined means "generate and persist one" (embedded mode only). */
  cookieKeys: string[] | undefined;
  /**
   * Encrypts the ID-token signing keys stored in the database (KEY_ENCRYPTION_KEY); unset: a key
   * derived from COOKIE_KEYS (services/auth/src/keys/signing-keys.ts).
   */
  keyEncryptionKey: string | undefined;
  /**
   * Encrypts calendar credentials at rest (ENCRYPTION_KEY, AES-256-GCM). Undefined means "generate
   * and persist one" in DATA_DIR (embedded mode only); the standalone services require it.
   */
  encryptionKey: string | undefined;
  /** Algorithm of new ID-token signing keys (ID_TOKEN_SIGNING_ALG, default ES256). */
  idTokenSigningAlg: 'ES256' | 'RS256';
  logLevel: LogLevel;
  bootstrapAdmin: { email: string; password: string } | undefined;
  trustProxy: boolean;
  shutdownTimeoutMs: number;
  /** Public sign-up (SIGNUP_ENABLED, default true). Off: no "Create account" anywhere, its pages 403. */
  signupEnabled: boolean;
  /**
   * Refresh retry window (REFRESH_REUSE_INTERVAL, seconds, default 10, 0 = off): a refresh token
   * presented again by its client this soon after its first use gets the same answer back.
   */
  refreshReuseInterval: number;
  /**
   * `GET /metrics`: `token` (METRICS_TOKEN) makes it need `Authorization: Bearer <token>`;
   * `enabled` (METRICS_ENABLED) overrides the service's default (on for the standalone services,
   * whose port sits behind the gateway; off on the all-in-one process's public origin).
   */
  metrics: { token: string | undefined; enabled: boolean | undefined };
  /** One info line per request (ACCESS_LOG, default true). */
  accessLog: boolean;
  /**
   * OUTBOUND_PRIVATE_NETWORKS=allow: server-side fetches (CalDAV, client metadata documents) may
   * reach loopback, private and other special-use addresses, and CalDAV may use http. Default deny.
   */
  outboundPrivateNetworks: boolean;
  /** Every rate limit (RATE_LIMITS over the defaults of `@sched/kit/rate-limits`). */
  rateLimits: RateLimits;
  /** Token lifetimes in seconds: ACCESS_TOKEN_TTL (default 1800), REFRESH_TOKEN_TTL (default 30 days). */
  tokenTtl: { accessToken: number; refreshToken: number };
  /** Google Calendar and Microsoft 365: undefined unless both the client id and secret are set. */
  calendarProviders: {
    google: GoogleProviderConfig | undefined;
    microsoft: MicrosoftProviderConfig | undefined;
  };
  /**
   * AI agents and other clients that register themselves (docs/operators-agents.md): `policy`
   * (AGENT_CLIENTS, default review), the scopes a pending agent may be given (AGENT_PENDING_SCOPES),
   * hosts whose client metadata documents are approved on first use (AGENT_TRUSTED_HOSTS) and
   * dynamic client registration (DCR_ENABLED, default off).
   */
  agents: {
    policy: AgentClientPolicy;
    pendingScopes: string[];
    trustedHosts: string[];
    dynamicRegistration: boolean;
  };
}

/**
 * Variables refused when set but empty, instead of taking their default: `DATA_DIR=$VOLUME` with
 * VOLUME unset would otherwise start a new, empty database (and new keys) in the working folder,
 * beside the one the operator meant, with nothing to say so.
 */
const KEPT_WHEN_EMPTY = new Set(['DATA_DIR']);

/** Reads and validates the environment once; nothing else reads process.env. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "unset", as in most twelve-factor tooling; but not DATA_DIR (below).
  const present = Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) => value !== undefined && (value !== '' || KEPT_WHEN_EMPTY.has(name)),
    ),
  );
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${variable} ${issue.message}`);
  }
  const e = parsed.data;
  if ((e.ADMIN_EMAIL === undefined) !== (e.ADMIN_PASSWORD === undefined)) {
    const missing = e.ADMIN_EMAIL === undefined ? 'ADMIN_EMAIL' : 'ADMIN_PASSWORD';
    throw new ConfigError(
      `Invalid configuration: ${missing} must be set together with the other ADMIN_ variable`,
    );
  }
  for (const provider of ['GOOGLE', 'MICROSOFT'] as const) {
    const id = e[`${provider}_CLIENT_ID`];
    const secret = e[`${provider}_CLIENT_SECRET`];
    if ((id === undefined) !== (secret === undefined)) {
      const missing = id === undefined ? `${provider}_CLIENT_ID` : `${provider}_CLIENT_SECRET`;
      throw new ConfigError(
        `Invalid configuration: ${missing} must be set together with the other ${provider}_CLIENT_ variable`,
      );
    }
  }
  // The default origin names PORT, and 0 (a port the system picks at each start) is no address: the
  // issuer, discovery and the links in e-mails would say :0, and would change at every restart.
  if (e.PORT === 0 && e.APP_URL === undefined && e.BASE_URL === undefined) {
    throw new ConfigError(
      'Invalid configuration: PORT 0 (any free port) needs APP_URL, the address the server names in its issuer and links',
    );
  }
  const defaultOrigin = `http://localhost:${e.PORT}`;
  const appUrl = e.APP_URL ?? e.BASE_URL ?? defaultOrigin;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    appUrl,
    baseUrl: e.BASE_URL ?? appUrl,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    dataDir: isAbsolute(e.DATA_DIR) ? e.DATA_DIR : resolve(e.DATA_DIR),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    cookieKeys: e.COOKIE_KEYS,
    keyEncryptionKey: e.KEY_ENCRYPTION_KEY,
    encryptionKey: e.ENCRYPTION_KEY,
    idTokenSigningAlg: e.ID_TOKEN_SIGNING_ALG,
    logLevel: e.LOG_LEVEL,
    bootstrapAdmin:
      e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD } : undefined,
    trustProxy: e.TRUST_PROXY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    signupEnabled: e.SIGNUP_ENABLED,
    refreshReuseInterval: e.REFRESH_REUSE_INTERVAL,
    metrics: { token: e.METRICS_TOKEN, enabled: e.METRICS_ENABLED },
    accessLog: e.ACCESS_LOG,
    outboundPrivateNetworks: e.OUTBOUND_PRIVATE_NETWORKS,
    rateLimits: e.RATE_LIMITS,
    tokenTtl: { accessToken: e.ACCESS_TOKEN_TTL, refreshToken: e.REFRESH_TOKEN_TTL },
    calendarProviders: {
      google:
        e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET
          ? {
              clientId: e.GOOGLE_CLIENT_ID,
              clientSecret: e.GOOGLE_CLIENT_SECRET,
              authUrl: e.GOOGLE_AUTH_URL,
              tokenUrl: e.GOOGLE_TOKEN_URL,
              calendarApiUrl: e.GOOGLE_CALENDAR_API_URL,
              revokeUrl: e.GOOGLE_REVOKE_URL,
            }
          : undefined,
      microsoft:
        e.MICROSOFT_CLIENT_ID && e.MICROSOFT_CLIENT_SECRET
          ? {
              clientId: e.MICROSOFT_CLIENT_ID,
              clientSecret: e.MICROSOFT_CLIENT_SECRET,
              authorityUrl: e.MICROSOFT_AUTHORITY_URL,
              graphUrl: e.MICROSOFT_GRAPH_URL,
            }
          : undefined,
    },
    agents: {
      policy: e.AGENT_CLIENTS,
      pendingScopes: e.AGENT_PENDING_SCOPES,
      trustedHosts: e.AGENT_TRUSTED_HOSTS,
      dynamicRegistration: e.DCR_ENABLED,
    },
  };
}

/** A standalone service (not the embedded launcher) needs real servers and real cookie keys. */
export function requireStandaloneServers(config: Config): asserts config is Config & {
  databaseUrl: string;
  redisUrl: string;
  cookieKeys: string[];
  encryptionKey: string;
} {
  for (const [name, value] of [
    ['DATABASE_URL', config.databaseUrl],
    ['REDIS_URL', config.redisUrl],
    ['COOKIE_KEYS', config.cookieKeys],
    ['ENCRYPTION_KEY', config.encryptionKey],
  ] as const) {
    if (value === undefined) {
      throw new ConfigError(`Invalid configuration: ${name} is required when a service runs on its own`);
    }
  }
}
