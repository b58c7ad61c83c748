import { isDeepStrictEqual } from 'node:util';
import { storedTokenId } from '@sched/db/token-store/keys';
import { createRedisTokenStore } from '@sched/db/token-store/redis';
import type { Redis } from 'ioredis';
import {
  ACCESS_TOKEN_TTL_S,
  GRANT_TTL_S,
  type GrantIds,
  grantRecords,
  PLACEHOLDERS,
  payloadTemplates,
  REFRESH_TOKEN_TTL_S,
} from './grants.ts';

/** Grants per script call: ~13 commands each, a few milliseconds of Redis per call. */
const BATCH = 1_000;
/** Calls in flight: Node builds the next batches while Redis runs one. */
const IN_FLIGHT = 4;
/** The store's INDEX_SLACK_MS: an owner-index entry outlives its Grant record by this much. */
const INDEX_SLACK_MS = 60_000;

/**
 * Writes whole grants inside Redis, one script call per batch: the keys, values, TTLs and index
 * entries the store's own scripts write for `upsert('Grant', ...)` (record + owner index) and the
 * token endpoint's `consumeAndUpsert(code, [AccessToken, RefreshToken])` (records, grant index,
 * last-use key). Through the store, a million grants are four million script calls from Node, minutes
 * on a loaded 2-core machine; here it is a thousand grants a call. `checkRedisLayout` compares one
 * grant written both ways, so the two cannot drift apart unnoticed.
 * ARGV: prefix; per model (Grant, AccessToken, RefreshToken) its payload as a `string.format`
 * format and the order of its values ('1,2': grant id, token id, account, client, session); TTLs
 * (ms: grant, access, refresh), index slack (ms); then per grant: grant id, access id, refresh id,
 * account, client, session.
 */
const FILL = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nowText = string.format('%.0f', now)
local p = ARGV[1]
local formats, orders = { ARGV[2], ARGV[4], ARGV[6] }, {}
for m = 1, 3 do
  orders[m] = {}
  for n in string.gmatch(ARGV[2 * m + 1], '%d+') do orders[m][#orders[m] + 1] = tonumber(n) end
end
local grantTtl, atTtl, rtTtl = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local function at(ms) return string.format('%.0f', now + ms) end
local ownerScore = at(grantTtl + tonumber(ARGV[11]))
local values, args = {}, {}
local function fill(m, jti)
  values[2] = jti
  local order = orders[m]
  for k = 1, #order do args[k] = values[order[k]] end
  return string.format(formats[m], unpack(args, 1, #order))
end
for i = 12, #ARGV, 6 do
  local g, a, r, acct, cli = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  values[1], values[3], values[4], values[5] = g, acct, cli, ARGV[i + 5]
  local base = p .. 'oidc:{' .. string.match(g, '%.([^%.]+)$') .. '}:'
  redis.call('SET', base .. 'Grant:' .. g, fill(1, g), 'PX', grantTtl)
  redis.call('SET', base .. 'AccessToken:' .. a, fill(2, a), 'PX', atTtl)
  redis.call('SET', base .. 'RefreshToken:' .. r, fill(3, r), 'PX', rtTtl)
  local index = base .. 'grant:' .. g
  redis.call('ZADD', index, at(atTtl), 'AccessToken:' .. a, at(rtTtl), 'RefreshToken:' .. r)
  redis.call('PEXPIREAT', index, at(rtTtl))
  redis.call('SET', base .. 'used:' .. g, nowText, 'PXAT', at(rtTtl))
  local owner = p .. 'oidc:idx:{u:' .. acct .. '}:'
  redis.call('ZADD', owner .. 'uc:' .. cli, ownerScore, 'Grant:' .. g)
  redis.call('PEXPIREAT', owner .. 'uc:' .. cli, ownerScore)
  redis.call('ZADD', owner .. 'user', 'GT', ownerScore, cli)
  redis.call('PEXPIREAT', owner .. 'user', ownerScore)
  local clientIndex = p .. 'oidc:idx:client:' .. cli
  redis.call('ZADD', clientIndex, 'GT', ownerScore, acct)
  redis.call('PEXPIREAT', clientIndex, ownerScore)
end
return 1
`;

/** The values FILL puts in a payload, by their number in its order lists. */
const VALUE_ORDER = [
  PLACEHOLDERS.grant,
  PLACEHOLDERS.jti,
  PLACEHOLDERS.account,
  PLACEHOLDERS.client,
  PLACEHOLDERS.session,
];

/** A payload template as a Lua format ('%s' for each placeholder) and the order of its values. */
function luaFormat(template: string): [format: string, order: string] {
  const order: number[] = [];
  const pattern = new RegExp(VALUE_ORDER.join('|'), 'g');
  const format = template.replaceAll('%', '%%').replace(pattern, (placeholder) => {
    order.push(VALUE_ORDER.indexOf(placeholder as (typeof VALUE_ORDER)[number]) + 1);
    return '%s';
  });
  return [format, order.join(',')];
}

function fillArgs(prefix: string, nowSeconds: number, grants: readonly GrantIds[]): string[] {
  const templates = payloadTemplates(nowSeconds);
  const args = [
    prefix,
    ...luaFormat(templates.Grant),
    ...luaFormat(templates.AccessToken),
    ...luaFormat(templates.RefreshToken),
    String(GRANT_TTL_S * 1000),
    String(ACCESS_TOKEN_TTL_S * 1000),
    String(REFRESH_TOKEN_TTL_S * 1000),
    String(INDEX_SLACK_MS),
  ];
  for (const ids of grants) {
    args.push(
      ids.grantId,
      storedTokenId(ids.accessTokenId),
      storedTokenId(ids.refreshTokenId),
      ids.accountId,
      ids.clientId,
      ids.sessionUid,
    );
  }
  return args;
}

/** Fills grants 0 .. count - 1 of `idsOf` under `prefix`. */
export async function fillRedis(
  redis: Redis,
  prefix: string,
  idsOf: (index: number) => GrantIds,
  count: number,
  nowSeconds: number,
): Promise<void> {
  const sha = (await redis.script('LOAD', FILL)) as string;
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) {
        const from = next;
        next = Math.min(count, next + BATCH);
        const grants: GrantIds[] = [];
        for (let index = from; index < next; index++) grants.push(idsOf(index));
        await redis.evalsha(sha, 0, ...fillArgs(prefix, nowSeconds, grants));
      }
    }),
  );
}

interface KeyShape {
  type: string;
  value: unknown;
  expires: boolean;
}

/** Every key under `prefix`: its type, value (zset members without scores) and whether it expires. */
async function snapshot(redis: Redis, prefix: string): Promise<Map<string, KeyShape>> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  const shapes = new Map<string, KeyShape>();
  for (const key of keys.sort()) {
    const type = await redis.type(key);
    // The last-use key holds the write's millisecond: equal in kind, not in value.
    const value =
      type === 'zset' ? await redis.zrange(key, 0, -1) : key.includes(':used:') ? 'ms' : await redis.get(key);
    shapes.set(key.slice(prefix.length), { type, value, expires: (await redis.pttl(key)) > 0 });
  }
  if (keys.length > 0) await redis.del(...keys);
  return shapes;
}

/**
 * One grant written by the store's own path and then by FILL, under a prefix of their own:
 * throws unless both leave the same keys, types, values and expiries.
 */
export async function checkRedisLayout(redis: Redis, ids: GrantIds, nowSeconds: number): Promise<void> {
  const prefix = 'lookup-check:';
  const store = createRedisTokenStore({ redis, prefix });
  const [grant, accessToken, refreshToken] = grantRecords(ids, nowSeconds);
  await store.upsert(grant!.model, grant!.id, grant!.payload, grant!.expiresInSeconds);
  await store.consumeAndUpsert(undefined, [accessToken!, refreshToken!]);
  const byStore = await snapshot(redis, prefix);
  await fillRedis(redis, prefix, () => ids, 1, nowSeconds);
  const byFill = await snapshot(redis, prefix);
  if (!isDeepStrictEqual(byStore, byFill)) {
    throw new Error(
      `the Redis filler no longer writes what the store writes:\nstore: ${JSON.stringify([...byStore])}\nfill:  ${JSON.stringify([...byFill])}`,
    );
  }
}

/** ARGV: prefix, first and last account id: `<prefix>ver:user:<id>` = 1 for each (bumpVersion once). */
const USER_VERSIONS = `
for a = tonumber(ARGV[2]), tonumber(ARGV[3]) do redis.call('SET', ARGV[1] .. 'ver:user:' .. a, '1') end
return 1
`;

/**
 * A version counter for every account (as if each user's access had changed once), so that the
 * lookups read two existing version keys, not one, and the SQL store's counters table is as large
 * as its users: the worst case of the read beside the token.
 */
export async function fillUserVersions(
  redis: Redis,
  prefix: string,
  { first, last }: { first: number; last: number },
): Promise<void> {
  for (let from = first; from <= last; from += 50_000) {
    await redis.eval(USER_VERSIONS, 0, prefix, String(from), String(Math.min(last, from + 49_999)));
  }
}

/** `used_memory` of INFO memory, in bytes. */
export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

/** Average MEMORY USAGE (bytes) of each of a grant's own keys over the sampled grants. */
export async function memoryUsageOfGrantKeys(
  redis: Redis,
  prefix: string,
  sample: readonly GrantIds[],
): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (const ids of sample) {
    const base = `${prefix}oidc:{${ids.grantId.slice(ids.grantId.lastIndexOf('.') + 1)}}:`;
    const keys: Record<string, string> = {
      Grant: `${base}Grant:${ids.grantId}`,
      AccessToken: `${base}AccessToken:${ids.accessTokenId}`,
      RefreshToken: `${base}RefreshToken:${ids.refreshTokenId}`,
      'grant index': `${base}grant:${ids.grantId}`,
      'last-use key': `${base}used:${ids.grantId}`,
      'user-client index': `${prefix}oidc:idx:{u:${ids.accountId}}:uc:${ids.clientId}`,
    };
    for (const [name, key] of Object.entries(keys)) {
      const bytes = Number((await redis.memory('USAGE', key, 'SAMPLES', 0)) ?? 0);
      totals[name] = (totals[name] ?? 0) + bytes;
    }
  }
  const averages: Record<string, number> = {};
  for (const [name, total] of Object.entries(totals)) averages[name] = Math.round(total / sample.length);
  return averages;
}
