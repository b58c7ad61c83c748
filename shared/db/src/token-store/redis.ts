import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  clientIndexKey,
  consumedKey,
  decodeRecord,
  grantIndexKey,
  grantMember,
  issuedKey,
  rateKey,
  recordKey,
  sessionIndexKey,
  uidIndexKey,
  userClientIndexKey,
  userCodeIndexKey,
  userIndexKey,
  versionKey,
} from './keys.ts';
import { DecodedRecords } from './decoded-records.ts';
import { createMgetBatcher } from './mget-batch.ts';
import {
  assertModelName,
  checkExpiresIn,
  checkWindow,
  isIndexedAccountId,
  isOwnerId,
  type RateHit,
  recordOwner,
  type RecordRef,
  type RecordWithVersions,
  type RecordWrite,
  type Settlement,
  type TokenPayload,
  type TokenStore,
  type UserClientGrants,
} from './types.ts';

/** Members a revocation pass deletes at most (each is two or three keys of one script call). */
const REVOKE_BATCH = 500;
/** A revocation that keeps finding new records this many passes gives up (never in practice). */
const MAX_REVOKE_PASSES = 10_000;
/** How many user-client revocations of `revokeByClient` / `revokeByUser` run at once. */
const FAN_OUT = 8;

interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

// Milliseconds since the epoch by the Redis server's clock (every process agrees on it).
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Writes records and, when asked, first consumes one: everything a token request settles, in one
 * atomic step (`consumeAndUpsert`; `upsert` and `consume` are its one-part cases).
 * KEYS: record and consumed mark of the record to consume (when ARGV[1] is '1' or '2'), with '2'
 * the record to read instead when the consumption fails (`consumeAndUpsertOrRead`), then per record
 * written: record, its consumed mark, then (as flagged) grant index, uid index, userCode index,
 * then the owner index: for owner 'c' the user-client index, user index, issued hash and client
 * index; for owner 's' the session index.
 * ARGV: consume? ('1' consume, '2' consume or read, '0' neither), then per record written: payload JSON, ttl ms ('' = none), consumed
 * epoch s ('' = not consumed), id, grant member, has-grant, has-uid, has-userCode ('1' / '0'),
 * owner ('c' account and client, 's' account only, '0' none), account id, client id.
 * Returns 0, writing nothing, when the record to consume is missing, expired or already consumed
 * (exactly one of concurrent callers gets 1); with '2', { 0, the record read } instead (a table
 * of one element when that record is missing). The consumed mark expires with its record. Every
 * index touched is pruned of expired members and given the TTL of its latest member once, at the
 * end (the indexes stay bounded by their live records).
 */
const CONSUME_AND_UPSERT = script(`
${NOW_MS}
local nowText = string.format('%.0f', now)
local k, a = 1, 2
if ARGV[1] ~= '0' then
  local function refused()
    if ARGV[1] == '2' then return { 0, redis.call('GET', KEYS[3]) } end
    return 0
  end
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl == -2 then return refused() end
  local set
  if ttl > 0 then set = redis.call('SET', KEYS[2], t[1], 'NX', 'PX', ttl)
  else set = redis.call('SET', KEYS[2], t[1], 'NX') end
  if not set then return refused() end
  k = 3
  if ARGV[1] == '2' then k = 4 end
end
local touched, order, companions = {}, {}, {}
local function touch(key, companion)
  if not touched[key] then touched[key] = true; order[#order + 1] = key end
  if companion then companions[key] = companion end
end
while a <= #ARGV do
  local rec, mark = KEYS[k], KEYS[k + 1]
  local payload, ttl, consumed, id, member = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
  local owner, account, client = ARGV[a + 8], ARGV[a + 9], ARGV[a + 10]
  k = k + 2
  local grantKey, uidKey, codeKey, ucKey, userKey, issuedKey, clientKey, sessionKey
  if ARGV[a + 5] == '1' then grantKey = KEYS[k]; k = k + 1 end
  if ARGV[a + 6] == '1' then uidKey = KEYS[k]; k = k + 1 end
  if ARGV[a + 7] == '1' then codeKey = KEYS[k]; k = k + 1 end
  if owner == 'c' then
    ucKey, userKey, issuedKey, clientKey = KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]; k = k + 4
  elseif owner == 's' then
    sessionKey = KEYS[k]; k = k + 1
  end
  a = a + 11
  redis.call('DEL', rec, mark)
  if ttl == '' or tonumber(ttl) > 0 then
    local function put(key, value)
      if ttl ~= '' then redis.call('SET', key, value, 'PX', ttl) else redis.call('SET', key, value) end
    end
    put(rec, payload)
    if consumed ~= '' then put(mark, consumed) end
    if uidKey then put(uidKey, id) end
    if codeKey then put(codeKey, id) end
    local score = '+inf'
    if ttl ~= '' then score = string.format('%.0f', now + tonumber(ttl)) end
    if grantKey then redis.call('ZADD', grantKey, score, member); touch(grantKey) end
    if ucKey then
      redis.call('ZADD', ucKey, score, member); touch(ucKey)
      redis.call('ZADD', userKey, 'GT', score, client); touch(userKey, issuedKey)
      redis.call('HSET', issuedKey, client, nowText)
      redis.call('ZADD', clientKey, 'GT', score, account); touch(clientKey)
    end
    if sessionKey then redis.call('ZADD', sessionKey, score, member); touch(sessionKey) end
  end
end
for _, key in ipairs(order) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', nowText)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  local companion = companions[key]
  if last[2] == nil or last[2] == 'inf' or last[2] == '+inf' then
    redis.call('PERSIST', key)
    if companion then redis.call('PERSIST', companion) end
  else
    redis.call('PEXPIREAT', key, last[2])
    if companion then redis.call('PEXPIREAT', companion, last[2]) end
  end
end
return 1
`);

/**
 * One pass of `revokeByUserAndClient`. Every key it touches is passed in KEYS (derivable from the
 * index's members by the caller, so the script can run on one cluster slot).
 * KEYS: user-client index, user index, issued hash, client index, then per member: record, its
 * consumed mark, and for a Grant member its grant index.
 * ARGV: account id, client id, batch size, then per member: member ('<Model>:<id>'), is-grant.
 * Deletes the members' records and removes them from the index; returns { usable tokens deleted
 * (not Grant, not consumed, not expired), the next batch of members still indexed }. When none is
 * left, the client leaves the user's indexes and the user the client's.
 */
const REVOKE_USER_CLIENT = script(`
${NOW_MS}
local n, k = 0, 5
for i = 4, #ARGV, 2 do
  local member, isGrant = ARGV[i], ARGV[i + 1]
  local consumed = redis.call('DEL', KEYS[k + 1])
  local deleted = redis.call('DEL', KEYS[k])
  k = k + 2
  if isGrant == '1' then
    redis.call('DEL', KEYS[k]); k = k + 1
  elseif deleted == 1 and consumed == 0 then
    n = n + 1
  end
  redis.call('ZREM', KEYS[1], member)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))
local rest = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
if #rest == 0 then
  redis.call('ZREM', KEYS[2], ARGV[2])
  redis.call('HDEL', KEYS[3], ARGV[2])
  redis.call('ZREM', KEYS[4], ARGV[1])
end
return { n, rest }
`);

/**
 * One pass of `revokeSessionsOfUser`. KEYS: session index, then per member: record, consumed mark.
 * ARGV: batch size, then the members. Returns { records deleted, the next batch of members }.
 */
const REVOKE_SESSIONS = script(`
${NOW_MS}
local n, k = 0, 2
for i = 2, #ARGV do
  redis.call('DEL', KEYS[k + 1])
  n = n + redis.call('DEL', KEYS[k])
  k = k + 2
  redis.call('ZREM', KEYS[1], ARGV[i])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now))
return { n, redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1) }
`);

/** KEYS: record, its consumed mark. ARGV: '<prefix>oidc:', model, id. Deletes both and the index entries. */
const DESTROY = script(`
-- pcall: a key of another type (a record of an older layout) is deleted without its index entries.
local p = redis.pcall('GET', KEYS[1])
if type(p) ~= 'string' then p = nil end
if p then
  local ok, obj = pcall(cjson.decode, p)
  if ok and type(obj) == 'table' then
    local pre, model, id = ARGV[1], ARGV[2], ARGV[3]
    if type(obj.grantId) == 'string' then
      redis.call('ZREM', pre .. 'grant:' .. obj.grantId, model .. ':' .. id)
    end
    if type(obj.uid) == 'string' then
      local k = pre .. 'uid:' .. model .. ':' .. obj.uid
      if redis.call('GET', k) == id then redis.call('DEL', k) end
    end
    if type(obj.userCode) == 'string' then
      local k = pre .. 'userCode:' .. model .. ':' .. obj.userCode
      if redis.call('GET', k) == id then redis.call('DEL', k) end
    end
  end
end
redis.call('DEL', KEYS[2])
return redis.call('DEL', KEYS[1])
`);

/** KEYS: grant index. ARGV: '<prefix>oidc:'. Deletes every member record, its mark, and the index. */
const REVOKE_GRANT = script(`
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local n = 0
for _, m in ipairs(members) do
  n = n + redis.call('DEL', ARGV[1] .. m)
  redis.call('DEL', ARGV[1] .. 'consumed:' .. m)
end
redis.call('DEL', KEYS[1])
return n
`);

/** KEYS: counter. ARGV: window ms. Returns { count, ms left in the window }. */
const HIT = script(`
local c = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if c == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { c, ttl }
`);

async function run(redis: Redis, s: Script, keys: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(s.source, keys.length, ...keys, ...args);
  }
}

export interface RedisTokenStoreOptions {
  redis: Redis;
  /** Prefix of every key, e.g. 'sched:' (production) or a unique one per test file. */
  prefix: string;
}

/** The production token store. `close()` ends the given client. */
export function createRedisTokenStore({ redis, prefix }: RedisTokenStoreOptions): TokenStore {
  const oidcPrefix = `${prefix}oidc:`;
  // The resource API's reads of concurrent requests share one MGET per turn (mget-batch.ts).
  const mget = createMgetBatcher(redis);
  const decodedRecords = new DecodedRecords();
  /** A record's key and its consumed mark's: every script and read takes them together. */
  const recordKeys = (model: string, id: string) => [
    recordKey(prefix, model, id),
    consumedKey(prefix, model, id),
  ];

  async function find<P extends TokenPayload>(model: string, id: string): Promise<P | undefined> {
    assertModelName(model);
    // Not batched: the authorization server's reads follow each other within one request, and
    // batching them measured no gain on the token endpoint, only a turn's wait per read.
    const [payload, consumed] = await redis.mget(recordKeys(model, id));
    return decodeRecord<P>(payload, consumed);
  }

  async function findByIndex<P extends TokenPayload>(
    model: string,
    indexKey: string,
    field: 'uid' | 'userCode',
    value: string,
  ): Promise<P | undefined> {
    assertModelName(model);
    const id = await redis.get(indexKey);
    if (id === null) return undefined;
    const record = await find<P>(model, id);
    // The index may outlive a replaced record; trust it only when the record still agrees.
    return record && record[field] === value ? record : undefined;
  }

  /** The KEYS and ARGV of one record written by CONSUME_AND_UPSERT, appended to `keys` and `args`. */
  function addWrite(write: RecordWrite, keys: string[], args: string[]): void {
    const { model, id, payload } = write;
    assertModelName(model);
    const expiresIn = checkExpiresIn(write.expiresInSeconds);
    const grantId = typeof payload.grantId === 'string' ? payload.grantId : undefined;
    const uid = typeof payload.uid === 'string' ? payload.uid : undefined;
    const userCode = typeof payload.userCode === 'string' ? payload.userCode : undefined;
    keys.push(...recordKeys(model, id));
    if (grantId !== undefined) keys.push(grantIndexKey(prefix, grantId));
    if (uid !== undefined) keys.push(uidIndexKey(prefix, model, uid));
    if (userCode !== undefined) keys.push(userCodeIndexKey(prefix, model, userCode));
    const owner = recordOwner(payload);
    if (owner?.kind === 'client') {
      keys.push(
        userClientIndexKey(prefix, owner.accountId, owner.clientId),
        userIndexKey(prefix, owner.accountId),
        issuedKey(prefix, owner.accountId),
        clientIndexKey(prefix, owner.clientId),
      );
    } else if (owner?.kind === 'account') {
      keys.push(sessionIndexKey(prefix, owner.accountId));
    }
    args.push(
      JSON.stringify(payload),
      expiresIn === undefined ? '' : String(Math.round(expiresIn * 1000)),
      typeof payload.consumed === 'number' ? String(Math.floor(payload.consumed)) : '',
      id,
      grantMember(model, id),
      grantId === undefined ? '0' : '1',
      uid === undefined ? '0' : '1',
      userCode === undefined ? '0' : '1',
      owner === undefined ? '0' : owner.kind === 'client' ? 'c' : 's',
      owner?.accountId ?? '',
      owner?.kind === 'client' ? owner.clientId : '',
    );
  }

  /** The record key and consumed mark of an index member ('<Model>:<id>'). */
  function memberKeys(member: string): [string, string] {
    const colon = member.indexOf(':');
    const model = member.slice(0, colon);
    const id = member.slice(colon + 1);
    return [recordKey(prefix, model, id), consumedKey(prefix, model, id)];
  }

  async function revokeByUserAndClient(accountId: string, clientId: string): Promise<number> {
    if (!isIndexedAccountId(accountId) || !isOwnerId(clientId)) return 0;
    const fixed = [
      userClientIndexKey(prefix, accountId, clientId),
      userIndexKey(prefix, accountId),
      issuedKey(prefix, accountId),
      clientIndexKey(prefix, clientId),
    ];
    // The first pass names no member: it reads the first batch (and tidies the user's and the
    // client's indexes when nothing is left). Each pass deletes what the previous one returned;
    // records written meanwhile (a rotation that settled first) come back in the next batch.
    let members: string[] = [];
    let total = 0;
    for (let pass = 0; pass < MAX_REVOKE_PASSES; pass++) {
      const keys = [...fixed];
      const args = [accountId, clientId, String(REVOKE_BATCH)];
      for (const member of members) {
        keys.push(...memberKeys(member));
        const isGrant = member.startsWith('Grant:');
        if (isGrant) keys.push(grantIndexKey(prefix, member.slice('Grant:'.length)));
        args.push(member, isGrant ? '1' : '0');
      }
      const [count, rest] = (await run(redis, REVOKE_USER_CLIENT, keys, args)) as [number, string[]];
      total += Number(count);
      if (rest.length === 0) return total;
      members = rest;
    }
    throw new Error(`revokeByUserAndClient(${accountId}, ${clientId}) did not settle`);
  }

  /** Runs `revoke` for each item, a few at a time; returns the sum. */
  async function sumOver(items: readonly string[], revoke: (item: string) => Promise<number>) {
    let total = 0;
    for (let i = 0; i < items.length; i += FAN_OUT) {
      const counts = await Promise.all(items.slice(i, i + FAN_OUT).map(revoke));
      for (const count of counts) total += count;
    }
    return total;
  }

  async function listGrantsOfUser(accountId: string): Promise<UserClientGrants[]> {
    if (!isIndexedAccountId(accountId)) return [];
    const [clients, issued] = await Promise.all([
      redis.zrangebyscore(userIndexKey(prefix, accountId), `(${Date.now()}`, '+inf'),
      redis.hgetall(issuedKey(prefix, accountId)),
    ]);
    const found: UserClientGrants[] = [];
    for (const clientId of clients.sort()) {
      const members = await redis.zrangebyscore(
        userClientIndexKey(prefix, accountId, clientId),
        `(${Date.now()}`,
        '+inf',
      );
      const grants = members.filter((member) => member.startsWith('Grant:'));
      const others = members.filter((member) => !member.startsWith('Grant:'));
      const grantPayloads = grants.length > 0 ? await redis.mget(grants.map((m) => memberKeys(m)[0])) : [];
      const scopes = new Set<string>();
      let first: number | undefined;
      for (const text of grantPayloads) {
        if (text === null) continue;
        const grant = JSON.parse(text) as { iat?: unknown; openid?: { scope?: unknown } };
        if (typeof grant.openid?.scope === 'string')
          for (const scope of grant.openid.scope.split(' ')) if (scope !== '') scopes.add(scope);
        if (typeof grant.iat === 'number') first = Math.min(first ?? grant.iat, grant.iat);
      }
      const liveOthers = others.length > 0 ? await redis.exists(...others.map((m) => memberKeys(m)[0])) : 0;
      if (first === undefined && liveOthers === 0) continue;
      const lastMs = Number(issued[clientId] ?? Number.NaN);
      const last = Number.isFinite(lastMs) ? Math.floor(lastMs / 1000) : (first ?? 0);
      found.push({
        clientId,
        scopes: [...scopes].sort(),
        firstGrantedAt: first ?? last,
        lastIssuedAt: Math.max(last, first ?? 0),
      });
    }
    return found;
  }

  /** CONSUME_AND_UPSERT: 1 when settled, 0 or { 0, record read? } when not. */
  async function settle(
    consume: RecordRef | undefined,
    writes: readonly RecordWrite[],
    otherwise: RecordRef | undefined,
  ): Promise<unknown> {
    const keys: string[] = [];
    const args: string[] = [consume ? (otherwise ? '2' : '1') : '0'];
    if (consume) {
      assertModelName(consume.model);
      keys.push(...recordKeys(consume.model, consume.id));
      if (otherwise) {
        assertModelName(otherwise.model);
        keys.push(recordKey(prefix, otherwise.model, otherwise.id));
      }
    }
    for (const write of writes) addWrite(write, keys, args);
    return run(redis, CONSUME_AND_UPSERT, keys, args);
  }

  async function consumeAndUpsert(
    consume: RecordRef | undefined,
    writes: readonly RecordWrite[],
  ): Promise<boolean> {
    return (await settle(consume, writes, undefined)) === 1;
  }

  async function consumeAndUpsertOrRead(
    consume: RecordRef,
    writes: readonly RecordWrite[],
    otherwise: RecordRef,
  ): Promise<Settlement> {
    const reply = await settle(consume, writes, otherwise);
    if (reply === 1) return { settled: true };
    const text = Array.isArray(reply) ? (reply[1] as string | null | undefined) : undefined;
    return { settled: false, found: decodeRecord<TokenPayload>(text, null) };
  }

  return {
    kind: 'redis',

    async upsert(model, id, payload, expiresInSeconds) {
      await consumeAndUpsert(undefined, [{ model, id, payload, expiresInSeconds }]);
    },

    find,

    findByUid(model, uid) {
      return findByIndex(model, uidIndexKey(prefix, model, uid), 'uid', uid);
    },

    findByUserCode(model, userCode) {
      return findByIndex(model, userCodeIndexKey(prefix, model, userCode), 'userCode', userCode);
    },

    consume(model, id) {
      return consumeAndUpsert({ model, id }, []);
    },

    consumeAndUpsert,

    consumeAndUpsertOrRead,

    async destroy(model, id) {
      assertModelName(model);
      await run(redis, DESTROY, recordKeys(model, id), [oidcPrefix, model, id]);
    },

    async revokeByGrantId(grantId) {
      return Number(await run(redis, REVOKE_GRANT, [grantIndexKey(prefix, grantId)], [oidcPrefix]));
    },

    revokeByUserAndClient,

    async revokeByClient(clientId) {
      if (!isOwnerId(clientId)) return 0;
      const accounts = await redis.zrange(clientIndexKey(prefix, clientId), 0, -1);
      return sumOver(accounts, (accountId) => revokeByUserAndClient(accountId, clientId));
    },

    async revokeByUser(accountId) {
      if (!isIndexedAccountId(accountId)) return 0;
      const clients = await redis.zrange(userIndexKey(prefix, accountId), 0, -1);
      return sumOver(clients, (clientId) => revokeByUserAndClient(accountId, clientId));
    },

    async revokeSessionsOfUser(accountId) {
      if (!isIndexedAccountId(accountId)) return 0;
      const index = sessionIndexKey(prefix, accountId);
      let members: string[] = [];
      let total = 0;
      for (let pass = 0; pass < MAX_REVOKE_PASSES; pass++) {
        const keys = [index, ...members.flatMap(memberKeys)];
        const [count, rest] = (await run(redis, REVOKE_SESSIONS, keys, [
          String(REVOKE_BATCH),
          ...members,
        ])) as [number, string[]];
        total += Number(count);
        if (rest.length === 0) return total;
        members = rest;
      }
      throw new Error(`revokeSessionsOfUser(${accountId}) did not settle`);
    },

    listGrantsOfUser,

    async hit(key, windowSeconds): Promise<RateHit> {
      const windowMs = Math.max(1, Math.ceil(checkWindow(windowSeconds) * 1000));
      const [count, ttlMs] = (await run(redis, HIT, [rateKey(prefix, key)], [windowMs])) as [number, number];
      return { count, resetInSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
    },

    async bumpVersion(key) {
      return redis.incr(versionKey(prefix, key));
    },

    async readVersions(keys) {
      if (keys.length === 0) return [];
      const values = await mget(keys.map((key) => versionKey(prefix, key)));
      return values.map(toVersion);
    },

    async findWithVersions<P extends TokenPayload>(
      model: string,
      id: string,
      versionKeys: readonly string[],
    ): Promise<RecordWithVersions<P>> {
      assertModelName(model);
      // The record, its consumed mark and the versions in one MGET (shared with the other reads
      // of this turn): ioredis's cost is per command, not per key (npm run bench redis-read).
      const reply = await mget([
        ...recordKeys(model, id),
        ...versionKeys.map((name) => versionKey(prefix, name)),
      ]);
      const versions: number[] = [];
      for (let i = 2; i < reply.length; i++) versions.push(toVersion(reply[i] ?? null));
      // Access tokens are read on every API request that carries them: parsed once, shared. Other
      // records (a refresh token, read once per rotation) are parsed afresh and stay mutable.
      const record =
        model === 'AccessToken'
          ? decodedRecords.decode<P>(reply[0], reply[1])
          : decodeRecord<P>(reply[0], reply[1]);
      return { record, versions };
    },

    async ping() {
      await redis.ping();
    },

    async close() {
      if (redis.status === 'end') return;
      const ended = new Promise<void>((resolve) => redis.once('end', () => resolve()));
      // QUIT lets pending replies arrive; when Redis is unreachable, drop the socket instead.
      await redis.quit().catch(() => redis.disconnect());
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        ended,
        new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            redis.disconnect();
            resolve();
          }, 1000);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

function toVersion(value: string | null): number {
  return value === null ? 0 : Number(value);
}
