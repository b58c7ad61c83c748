/**
 * The storage layout of the token store: a contract between the auth service (writer) and the
 * resource API (reader), documented in docs/token-store.md. Change it only together with both.
 *
 * Redis (every key starts with the deployment's prefix, e.g. 'sched:'). `{T}` is a Redis Cluster
 * hash tag: `tagOf(id)` for a record, `tagOf(grantId)` for a grant's keys, so a grant, its codes
 * and tokens (whose ids end in `.<the grant's tag>`, `taggedTokenId`) share one slot.
 *   <prefix>oidc:{T}:<Model>:<id>           string: JSON of the oidc-provider payload, TTL = the record's
 *   <prefix>oidc:{T}:consumed:<Model>:<id>  string: epoch seconds it was consumed (only once consumed)
 *   <prefix>oidc:{T}:grant:<grantId>        sorted set of '<Model>:<id>' of the grant's records that carry
 *                                           its tag, score = expiry in epoch ms; key TTL = latest member
 *   <prefix>oidc:{T}:used:<grantId>         string: epoch ms of the latest record written for the grant
 *   <prefix>oidc:uid:<Model>:<uid>          string <id>, TTL = the record's (its own slot)
 *   <prefix>oidc:userCode:<Model>:<code>    string <id>, TTL = the record's (its own slot)
 *   <prefix>oidc:idx:{A}:uc:<client>        sorted set of 'Grant:<grantId>' of the account for the
 *                                           client, score = the grant's expiry (A = 'u:<account>')
 *   <prefix>oidc:idx:{A}:user               sorted set of client ids, score = latest grant expiry
 *   <prefix>oidc:idx:{A}:session            sorted set of 'Session:<id>' (records naming no client)
 *   <prefix>oidc:idx:client:<client>        sorted set of account ids (a directory; own slot)
 *   <prefix>rate:<key>                      integer hit count of the current window, TTL = rest of window
 *   <prefix>ver:<key>                       integer version, no TTL
 *   <prefix>mark:hashed-ids                 epoch ms at which hashed ids began, set once, no TTL
 *
 * SQL: tables token_records and token_counters (migrations/0002_token_store.ts); counters use the
 * same 'rate:<key>' / 'ver:<key>' / 'mark:hashed-ids' names as Redis, without a prefix.
 */

import { hash } from 'node:crypto';

/** SQL tables. */
export const TOKEN_TABLES = { records: 'token_records', counters: 'token_counters' } as const;

/**
 * The hash tag of a record id: the text after its last '.', or the whole id when it has none (or
 * ends with it). A grant's tokens carry the grant's tag that way, so they share its slot.
 */
export function tagOf(id: string): string {
  const dot = id.lastIndexOf('.');
  return dot >= 0 && dot < id.length - 1 ? id.slice(dot + 1) : id;
}

/** The id of a code or token of `grantId`: a random part and the grant's tag. */
export function taggedTokenId(random: string, grantId: string): string {
  return `${random}.${tagOf(grantId)}`;
}

/** Whether a record of `id` naming `grantId` lives in the grant's slot (and is in its index). */
export function sharesGrantTag(id: string, grantId: string): boolean {
  return tagOf(id) === tagOf(grantId);
}

/** `<prefix>oidc:{<tag>}:`, what every key of the records of one tag starts with. */
export function tagPrefix(prefix: string, tag: string): string {
  return `${prefix}oidc:{${tag}}:`;
}

export function recordKey(prefix: string, model: string, id: string): string {
  return `${prefix}oidc:{${tagOf(id)}}:${model}:${id}`;
}

/**
 * The consumed mark of a record: a key of its own beside the record (not a hash field), so one
 * `MGET` reads a record, its mark and any version counters in a single command.
 */
export function consumedKey(prefix: string, model: string, id: string): string {
  return `${prefix}oidc:{${tagOf(id)}}:consumed:${model}:${id}`;
}

/** Member of a grant index: the record key without '<prefix>oidc:{<tag>}:'. */
export function grantMember(model: string, id: string): string {
  return `${model}:${id}`;
}

export function grantIndexKey(prefix: string, grantId: string): string {
  return `${prefix}oidc:{${tagOf(grantId)}}:grant:${grantId}`;
}

/** When a record of the grant was last written (connected apps' last use), in the grant's slot. */
export function grantUsedKey(prefix: string, grantId: string): string {
  return `${prefix}oidc:{${tagOf(grantId)}}:used:${grantId}`;
}

export function uidIndexKey(prefix: string, model: string, uid: string): string {
  return `${prefix}oidc:uid:${model}:${uid}`;
}

export function userCodeIndexKey(prefix: string, model: string, userCode: string): string {
  return `${prefix}oidc:userCode:${model}:${userCode}`;
}

/** The owner index (docs/token-store.md "Owner index"): the account's grants of one client. */
export function userClientIndexKey(prefix: string, accountId: string, clientId: string): string {
  return `${prefix}oidc:idx:{u:${accountId}}:uc:${clientId}`;
}

/** The clients an account has grants of. */
export function userIndexKey(prefix: string, accountId: string): string {
  return `${prefix}oidc:idx:{u:${accountId}}:user`;
}

/** The accounts a client has grants of (a directory in the client's own slot). */
export function clientIndexKey(prefix: string, clientId: string): string {
  return `${prefix}oidc:idx:client:${clientId}`;
}

/** The account's records that name no client (its browser Sessions). */
export function sessionIndexKey(prefix: string, accountId: string): string {
  return `${prefix}oidc:idx:{u:${accountId}}:session`;
}

/**
 * When this store first served hashed ids (epoch ms), written once and never moved: the read
 * fallback to ids of the old layout ends a token lifetime after it (`withHashedIds`). A name of
 * both stores (Redis adds the prefix; SQL: a token_counters row without expiry).
 */
export const HASHED_IDS_MARK = 'mark:hashed-ids';

/** Counter name shared by both stores (Redis adds the prefix). */
export function rateCounter(key: string): string {
  return `rate:${key}`;
}

export function versionCounter(key: string): string {
  return `ver:${key}`;
}

export function rateKey(prefix: string, key: string): string {
  return `${prefix}${rateCounter(key)}`;
}

export function versionKey(prefix: string, key: string): string {
  return `${prefix}${versionCounter(key)}`;
}

/**
 * Decodes a record as read by `MGET <recordKey> <consumedKey>` (the one read the resource API
 * needs): undefined when the record key is missing.
 */
export function decodeRecord<P>(
  payload: string | null | undefined,
  consumed: string | null | undefined,
): P | undefined {
  if (payload === null || payload === undefined) return undefined;
  const parsed = JSON.parse(payload) as P & { consumed?: number };
  if (consumed !== null && consumed !== undefined) parsed.consumed = Number(consumed);
  return parsed;
}

/**
 * The models whose record id is a bearer secret (the token, code or session cookie itself, or the
 * refresh token a kept retry answer is filed under): stored under `storedTokenId(id)`, never the
 * id itself (docs/token-store.md "Hashed ids"). Models oidc-provider finds by a secondary index
 * whose record it may save again (DeviceCode, by user code) are not here: such a record would come
 * back without its id. Enabling one of them needs that looked at first.
 */
export const HASHED_ID_MODELS: ReadonlySet<string> = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'Session',
  'RefreshRetry',
  'ClientCredentials',
  'RegistrationAccessToken',
  'InitialAccessToken',
  'PushedAuthorizationRequest',
  'BackchannelAuthenticationRequest',
]);

/**
 * The stored id of a bearer secret: base64url(SHA-256(id)), followed by '.<tag>' when the id
 * carries a hash tag (`taggedTokenId`), so the record stays in its grant's slot and index. The tag
 * is the grant's (not secret); the random part, the secret, is only ever stored hashed.
 */
export function storedTokenId(id: string): string {
  // One-shot `hash` with text output: no Hash object and no Buffer (about 0.3 against 0.7 µs).
  const digest = hash('sha256', id, 'base64url');
  const dot = id.lastIndexOf('.');
  return dot >= 0 && dot < id.length - 1 ? `${digest}.${id.slice(dot + 1)}` : digest;
}
