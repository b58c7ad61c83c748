import { accessVersionKey, findActiveClientSecretHashes } from '@sched/db/queries/access-facts';
import { clientVersionKey } from '@sched/db/queries/oauth-clients';
import { findActiveApiKeyByHash, touchLastUsed } from '@sched/db/queries/api-keys';
import type { AccessTokenPayload } from '@sched/db/token-store/types';
import type { ResourceName } from '@sched/policy/protected-resources';
import { UnauthorizedError } from '@sched/kit/errors';
import { API_KEY_PREFIX, constantTimeEqual, sha256Hex } from '@sched/kit/secrets';
import type { Context } from 'koa';
import type { Caller } from '../routing/caller.ts';
import type { AnyRoute } from '../routing/route.ts';
import type { AccessControl, TokenOwner, UserFacts } from './access-control.ts';
import { ReadVersions } from './read-versions.ts';
import { UNKNOWN_VERSION } from '@sched/kit/versioned-cache';

/** The caller, and the invalidation versions read with the credential (key -> version). */
export interface Authenticated {
  caller: Caller | undefined;
  versions: ReadonlyMap<string, number>;
}

const NO_VERSIONS: ReadonlyMap<string, number> = new Map();
const NO_KEYS: readonly string[] = [];
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;
const INVALID_TOKEN = 'Bearer error="invalid_token"';
const WRONG_AUDIENCE = 'The access token was issued for another resource';
/** last_used_at is written at most this often per key and process. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * Resolves the caller from the request's credential for the route's `auth` kind, reading the
 * credential and the given version keys in ONE token-store round trip:
 * - OAuth access token: `findWithVersions('AccessToken', token, [user:<id>?, ...keys])`;
 * - API key (`svc_...`): SHA-256 lookup (cached per process) + `readVersions([user:<id>?, ...keys])`;
 * - `x-svc-secret-key` for `client-secret` routes, compared in constant time with the hashes of
 *   the client's active secrets.
 * Missing credential: 401 `WWW-Authenticate: Bearer`; bad, expired or revoked one: 401
 * `WWW-Authenticate: Bearer error="invalid_token"` (app.ts adds `resource_metadata`).
 * `resource`: which audience an OAuth token must carry (docs/mcp.md "Audience"): `api` (/v2) takes
 * tokens of audience BASE_URL or none; `mcp` only tokens of audience BASE_URL/mcp, and no API keys.
 */
export function authenticate(
  ctx: Context,
  route: Pick<AnyRoute, 'auth'>,
  control: AccessControl,
  keys: readonly string[],
  resource: ResourceName = 'api',
): Promise<Authenticated> {
  // Not async itself: a user route's credential goes straight to the bearer check's promise,
  // without a promise and an async frame of this function's own per request. Errors are
  // rejections all the same.
  try {
    if (route.auth === 'client-secret') return authenticateWithClientSecret(ctx, control, keys);
    const header = ctx.get('authorization');
    if (route.auth === 'public') return authenticateOptional(header, control, keys, resource);
    if (header === '') {
      throw new UnauthorizedError(
        'Authentication required: send Authorization: Bearer <API key or access token>',
      );
    }
    return authenticateBearer(header, control, keys, resource);
  } catch (error) {
    return Promise.reject(error);
  }
}

async function authenticateWithClientSecret(
  ctx: Context,
  control: AccessControl,
  keys: readonly string[],
): Promise<Authenticated> {
  const caller = await authenticateClientSecret(ctx, control);
  return { caller, versions: await versionsOnly(control, keys) };
}

/** An anonymous caller of a public route that reads no versions: settled once, shared (frozen). */
const ANONYMOUS: Promise<Authenticated> = Promise.resolve(
  Object.freeze({ caller: undefined, versions: NO_VERSIONS }),
);

/** Public endpoints need no credential: a valid one becomes the caller, an invalid one is ignored. */
function authenticateOptional(
  header: string,
  control: AccessControl,
  keys: readonly string[],
  resource: ResourceName,
): Promise<Authenticated> {
  // The common anonymous read: no async frames of its own (see `authenticate`).
  if (header === '' && keys.length === 0) return ANONYMOUS;
  return authenticateOptionalSlowly(header, control, keys, resource);
}

async function authenticateOptionalSlowly(
  header: string,
  control: AccessControl,
  keys: readonly string[],
  resource: ResourceName,
): Promise<Authenticated> {
  if (header === '') return { caller: undefined, versions: await versionsOnly(control, keys) };
  try {
    return await authenticateBearer(header, control, keys, resource);
  } catch (error) {
    if (error instanceof UnauthorizedError)
      return { caller: undefined, versions: await versionsOnly(control, keys) };
    throw error;
  }
}

function authenticateBearer(
  header: string,
  control: AccessControl,
  keys: readonly string[],
  resource: ResourceName,
) {
  const token = BEARER.exec(header)?.[1];
  if (token === undefined) {
    throw new UnauthorizedError(
      'The Authorization header must be "Bearer <API key or access token>"',
      'Bearer error="invalid_request"',
    );
  }
  if (!token.startsWith(API_KEY_PREFIX)) return authenticateAccessToken(token, control, keys, resource);
  // An API key names no audience: it is a /v2 credential only.
  if (resource === 'mcp') throw new UnauthorizedError(WRONG_AUDIENCE, INVALID_TOKEN);
  return authenticateApiKey(token, control, keys);
}

async function versionsOnly(
  control: AccessControl,
  keys: readonly string[],
): Promise<ReadonlyMap<string, number>> {
  if (keys.length === 0) return NO_VERSIONS;
  return versionMap(keys, await control.deps.stores.tokenStore.readVersions(keys));
}

function versionMap(keys: readonly string[], versions: readonly number[]): ReadonlyMap<string, number> {
  return new ReadVersions(keys, versions);
}

function authenticateAccessToken(
  token: string,
  control: AccessControl,
  keys: readonly string[],
  resource: ResourceName,
): Promise<Authenticated> {
  const known = control.tokenOwners.get(token);
  const ownerKeys = known?.versionKeys ?? NO_KEYS;
  const readKeys = keys.length === 0 ? ownerKeys : [...ownerKeys, ...keys];
  // A continuation rather than an async function: no suspended frame per request on the hot path.
  return control.deps.stores.tokenStore
    .findWithVersions<AccessTokenPayload>('AccessToken', token, readKeys)
    .then((read) => judgeAccessToken(token, control, resource, known, readKeys, read.record, read.versions));
}

/** The caller of a token read with its versions; waits only when its user or client is not cached. */
function judgeAccessToken(
  token: string,
  control: AccessControl,
  resource: ResourceName,
  known: TokenOwner | undefined,
  readKeys: readonly string[],
  record: AccessTokenPayload | undefined,
  versions: readonly number[],
): Authenticated | Promise<Authenticated> {
  const nowSeconds = Date.now() / 1000;
  const userId = record ? Number(record.accountId) : Number.NaN;
  const clientId = record ? String(record.clientId) : '';
  if (
    record?.kind !== 'AccessToken' ||
    typeof record.exp !== 'number' ||
    record.exp <= nowSeconds ||
    !Number.isSafeInteger(userId) ||
    userId <= 0
  ) {
    control.tokenOwners.delete(token);
    throw new UnauthorizedError('The access token is invalid, expired or revoked', INVALID_TOKEN);
  }
  if (!audienceAccepted(record.aud, resource, control))
    throw new UnauthorizedError(WRONG_AUDIENCE, INVALID_TOKEN);
  const map = versionMap(readKeys, versions);
  // Versions read this request count only if they were read for this token's real owners.
  const sameOwners = known?.userId === userId && known.clientId === clientId;
  const ownerKeys = known?.versionKeys ?? NO_KEYS;
  // Cache hits answer synchronously; only misses wait (in parallel) for the database.
  const user = control.userFacts(userId, sameOwners ? map.get(ownerKeys[0]!) : undefined);
  const clientExists = control.clientExists(clientId, sameOwners ? map.get(ownerKeys[1]!) : undefined);
  const scope = typeof record.scope === 'string' ? record.scope : '';
  const legacy = record.extra?.['legacy'] === true;
  const judged: TokenJudgement = {
    token,
    control,
    known,
    sameOwners,
    userId,
    clientId,
    scope,
    legacy,
    versions: map,
  };
  if (user instanceof Promise || clientExists instanceof Promise)
    return Promise.all([user, clientExists]).then(([facts, exists]) => authenticated(judged, facts, exists));
  return authenticated(judged, user, clientExists);
}

/** What `judgeAccessToken` learned, for its last step. */
interface TokenJudgement {
  token: string;
  control: AccessControl;
  known: TokenOwner | undefined;
  sameOwners: boolean;
  userId: number;
  clientId: string;
  scope: string;
  legacy: boolean;
  versions: ReadonlyMap<string, number>;
}

/** The caller, once the token's user (enabled) and client are known to exist. */
function authenticated(judged: TokenJudgement, user: UserFacts | null, clientExists: boolean): Authenticated {
  const { token, control, known, userId, clientId, scope } = judged;
  if (!user || user.disabled || !clientExists) {
    control.tokenOwners.delete(token);
    throw new UnauthorizedError('The access token is invalid, expired or revoked', INVALID_TOKEN);
  }
  const owner = judged.sameOwners && known?.scope === scope ? known : tokenOwner(userId, clientId, scope);
  if (owner !== known) control.tokenOwners.set(token, owner);
  return {
    caller: {
      kind: 'oauth',
      userId,
      serviceAdmin: user.serviceAdmin,
      clientId,
      scopes: owner.scopes,
      legacy: judged.legacy,
    },
    versions: judged.versions,
  };
}

/** /v2 takes its own audience or none (clients that send no `resource`); /mcp only its own. */
function audienceAccepted(aud: unknown, resource: ResourceName, control: AccessControl): boolean {
  if (resource === 'api' && aud === undefined) return true;
  return aud === control.resources[resource].identifier;
}

function tokenOwner(userId: number, clientId: string, scope: string): TokenOwner {
  return {
    userId,
    clientId,
    versionKeys: [accessVersionKey.user(userId), clientVersionKey(clientId)],
    scope,
    scopes: Object.freeze(scope === '' ? [] : scope.split(' ').filter((s) => s !== '')),
  };
}

async function authenticateApiKey(
  token: string,
  control: AccessControl,
  keys: readonly string[],
): Promise<Authenticated> {
  const hash = sha256Hex(token);
  const known = control.apiKeys.peek(hash);
  const userKey = known === undefined ? undefined : accessVersionKey.user(known.userId);
  const readKeys = userKey === undefined ? keys : [userKey, ...keys];
  const versions = readKeys.length > 0 ? await control.deps.stores.tokenStore.readVersions(readKeys) : [];
  const map = versionMap(readKeys, versions);
  const userVersion = userKey === undefined ? undefined : map.get(userKey);
  let entry = userVersion === undefined ? undefined : control.apiKeys.get(hash, [userVersion]);
  if (entry === undefined) {
    const found = await findActiveApiKeyByHash(control.deps.stores.db.knex, hash);
    if (!found) {
      control.apiKeys.delete(hash);
      throw new UnauthorizedError('The API key is invalid or revoked', INVALID_TOKEN);
    }
    entry = { apiKeyId: found.apiKeyId, userId: found.user.id, serviceAdmin: found.user.isServiceAdmin };
    // Tagged with the version read BEFORE the lookup, or unknown (reloaded next time) on first sight.
    const tag =
      known !== undefined && known.userId === entry.userId
        ? (userVersion ?? UNKNOWN_VERSION)
        : UNKNOWN_VERSION;
    control.apiKeys.set(hash, entry, [tag]);
  }
  touchApiKey(control, entry.apiKeyId);
  return {
    caller: {
      kind: 'api-key',
      userId: entry.userId,
      serviceAdmin: entry.serviceAdmin,
      apiKeyId: entry.apiKeyId,
    },
    versions: map,
  };
}

/** Records the key's use without a write per request (at most once a minute per process). */
function touchApiKey(control: AccessControl, apiKeyId: number): void {
  const now = Date.now();
  const last = control.apiKeyTouches.get(apiKeyId);
  if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
  if (control.apiKeyTouches.size > 50_000) control.apiKeyTouches.clear();
  control.apiKeyTouches.set(apiKeyId, now);
  touchLastUsed(control.deps.stores.db.knex, apiKeyId, TOUCH_INTERVAL_MS / 1000).catch((error: unknown) => {
    control.deps.logger.warn({ err: error, apiKeyId }, 'could not record API key use');
  });
}

async function authenticateClientSecret(ctx: Context, control: AccessControl): Promise<Caller> {
  const presented = ctx.get('x-svc-secret-key');
  const clientId = (ctx.params as Record<string, string | undefined>)['clientId'];
  if (presented === '') throw new UnauthorizedError('The x-svc-secret-key header is required');
  if (!clientId) throw new Error('client-secret routes need a :clientId path parameter');
  const hashes = await findActiveClientSecretHashes(control.deps.stores.db.knex, clientId);
  const presentedHash = sha256Hex(presented);
  let matched = false;
  // Compare with every active secret (at most two), so the time does not depend on which matched.
  for (const hash of hashes ?? []) matched = constantTimeEqual(hash, presentedHash) || matched;
  if (!matched) throw new UnauthorizedError('Invalid client secret', INVALID_TOKEN);
  return { kind: 'client-secret', clientId };
}
