/**
 * The storage layout of the token store: a contract between the auth service (writer) and the
 * resource API (reader), documented in docs/token-store.md. Change it only together with both.
 *
 * Redis (every key starts with the deployment's prefix, e.g. 'sched:'):
 *   <prefix>oidc:<Model>:<id>              string: JSON of the oidc-provider payload, TTL = the record's
 *   <prefix>oidc:consumed:<Model>:<id>     string: epoch seconds it was consumed (only once consumed),
 *                                          TTL = the record's
 *   <prefix>oidc:grant:<grantId>           sorted set of '<Model>:<id>' members, score = member's
 *                                          expiry in epoch ms ('+inf' = none); key TTL = latest member
 *   <prefix>oidc:uid:<Model>:<uid>         string <id>, TTL = the record's
 *   <prefix>oidc:userCode:<Model>:<code>   string <id>, TTL = the record's
 *   <prefix>oidc:idx:uc:<account>:<client> sorted set of '<Model>:<id>' members of the account's records
 *                                          for the client, score = expiry in epoch ms; key TTL = latest
 *   <prefix>oidc:idx:user:<account>        sorted set of client ids, score = latest expiry of the
 *                                          account's records for that client; key TTL = latest
 *   <prefix>oidc:idx:issued:<account>      hash client id -> epoch ms of the latest record written for
 *                                          it; same TTL as idx:user
 *   <prefix>oidc:idx:client:<client>       sorted set of account ids, score as in idx:user
 *   <prefix>oidc:idx:session:<account>     sorted set of '<Model>:<id>' of the account's records that
 *                                          name no client (Sessions), score = expiry in epoch ms
 *   <prefix>rate:<key>                     integer hit count of the current window, TTL = rest of window
 *   <prefix>ver:<key>                      integer version, no TTL
 *
 * SQL: tables token_records and token_counters (migrations/0002_token_store.ts); counters use the
 * same 'rate:<key>' / 'ver:<key>' names as Redis, without a prefix.
 */

/** SQL tables. */
export const TOKEN_TABLES = { records: 'token_records', counters: 'token_counters' } as const;

export function recordKey(prefix: string, model: string, id: string): string {
  return `${prefix}oidc:${model}:${id}`;
}

/**
 * The consumed mark of a record: a key of its own beside the record (not a hash field), so one
 * `MGET` reads a record, its mark and any version counters in a single command.
 */
export function consumedKey(prefix: string, model: string, id: string): string {
  return `${prefix}oidc:consumed:${model}:${id}`;
}

/** Member of a grant index: the record key without '<prefix>oidc:'. */
export function grantMember(model: string, id: string): string {
  return `${model}:${id}`;
}

export function grantIndexKey(prefix: string, grantId: string): string {
  return `${prefix}oidc:grant:${grantId}`;
}

export function uidIndexKey(prefix: string, model: string, uid: string): string {
  return `${prefix}oidc:uid:${model}:${uid}`;
}

export function userCodeIndexKey(prefix: string, model: string, userCode: string): string {
  return `${prefix}oidc:userCode:${model}:${userCode}`;
}

/** The owner index (docs/token-store.md "Owner index"): the account's records for one client. */
export function userClientIndexKey(prefix: string, accountId: string, clientId: string): string {
  return `${prefix}oidc:idx:uc:${accountId}:${clientId}`;
}

/** The clients an account has records for. */
export function userIndexKey(prefix: string, accountId: string): string {
  return `${prefix}oidc:idx:user:${accountId}`;
}

/** When a record of the account was last written, per client (connected apps' last use). */
export function issuedKey(prefix: string, accountId: string): string {
  return `${prefix}oidc:idx:issued:${accountId}`;
}

/** The accounts a client has records for. */
export function clientIndexKey(prefix: string, clientId: string): string {
  return `${prefix}oidc:idx:client:${clientId}`;
}

/** The account's records that name no client (its browser Sessions). */
export function sessionIndexKey(prefix: string, accountId: string): string {
  return `${prefix}oidc:idx:session:${accountId}`;
}

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
