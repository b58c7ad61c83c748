import { memoized } from '@sched/kit/memoized';
import { createHash } from 'node:crypto';
import { queueCommand, textReply } from '../queued-command.ts';
import type { RedisClient } from '../redis.ts';
import {
  clientIndexKey,
  consumedKey,
  decodeRecord,
  grantIndexKey,
  grantMember,
  grantUsedKey,
  HASHED_IDS_MARK,
  rateKey,
  recordKey,
  sessionIndexKey,
  sharesGrantTag,
  tagOf,
  tagPrefix,
  uidIndexKey,
  userClientIndexKey,
  userCodeIndexKey,
  userIndexKey,
  versionKey,
} from './keys.ts';
import { DecodedRecords } from './decoded-records.ts';
import { type HashedIdsOptions, withHashedIds } from './hashed-ids.ts';
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

/** Index members (grants, sessions) a revocation pass takes at most. */
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

// The hash tag of an id in Lua, as `tagOf` in keys.ts: after the last '.', else the whole id.
const TAG_OF = `local function tagOf(id) return string.match(id, '%.([^%.]+)$') or id end`;

// Prunes the expired members of each sorted set touched and gives it (and its companion key, if
// any) the TTL of its latest member: the indexes stay bounded by their live records.
const EXPIRE_TOUCHED = `
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
end`;

/**
 * Writes records and, when asked, first consumes one: everything a token request settles, in one
 * atomic step (`consumeAndUpsert`; `upsert` and `consume` are its one-part cases). On a cluster
 * every key of one call is in one slot: the records of one grant (its tag).
 * KEYS: record and consumed mark of the record to consume (when ARGV[1] is '1' or '2'), with '2'
 * the record to read instead when the consumption fails (`consumeAndUpsertOrRead`), then per record
 * written: record, its consumed mark, and when it carries its grant's tag the grant index, the
 * grant's last-use key and the Grant record.
 * ARGV: consume? ('1' consume, '2' consume or read, '0' neither), then per record written: payload
 * JSON, ttl ms ('' = none), consumed epoch s ('' = not consumed), grant member, in-grant ('1'/'0').
 * Returns 0, writing nothing, when the record to consume is missing, expired or already consumed
 * (exactly one of concurrent callers gets 1); with '2', { 0, the record read } instead (a table
 * of one element when that record is missing). A record of a grant never outlives the Grant
 * record (its TTL is cut to the grant's): the grant's owner-index entry, which lives as long as
 * the Grant record, always reaches it.
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
while a <= #ARGV do
  local rec, mark = KEYS[k], KEYS[k + 1]
  local payload, ttl, consumed, member = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local grantKey, usedKey
  k = k + 2
  if ARGV[a + 4] == '1' then
    grantKey, usedKey = KEYS[k], KEYS[k + 1]
    local left = redis.call('PTTL', KEYS[k + 2])
    if left > 0 and (ttl == '' or tonumber(ttl) > left) then ttl = tostring(left) end
    k = k + 3
  end
  a = a + 5
  redis.call('DEL', rec, mark)
  if ttl == '' or tonumber(ttl) > 0 then
    local function put(key, value)
      if ttl ~= '' then redis.call('SET', key, value, 'PX', ttl) else redis.call('SET', key, value) end
    end
    put(rec, payload)
    if consumed ~= '' then put(mark, consumed) end
    if grantKey then
      local score = '+inf'
      if ttl ~= '' then score = string.format('%.0f', now + tonumber(ttl)) end
      redis.call('ZADD', grantKey, score, member)
      redis.call('SET', usedKey, nowText)
      if not touched[grantKey] then touched[grantKey] = true; order[#order + 1] = grantKey end
      companions[grantKey] = usedKey
    end
  end
end
${EXPIRE_TOUCHED}
return 1
`);

/**
 * Adds members to sorted sets of one slot (the owner index): KEYS: the sets; ARGV per set: member,
 * ttl ms ('' = none; the caller adds `INDEX_SLACK_MS`), '1' to keep a later score (ZADD GT).
 * Score = now + ttl.
 */
const INDEX_ADD = script(`
${NOW_MS}
local nowText = string.format('%.0f', now)
local order, companions = {}, {}
for i = 1, #KEYS do
  local member, ttl, gt = ARGV[3 * i - 2], ARGV[3 * i - 1], ARGV[3 * i]
  local score = '+inf'
  if ttl ~= '' then score = string.format('%.0f', now + tonumber(ttl)) end
  if gt == '1' then redis.call('ZADD', KEYS[i], 'GT', score, member)
  else redis.call('ZADD', KEYS[i], score, member) end
  order[#order + 1] = KEYS[i]
end
${EXPIRE_TOUCHED}
return 1
`);

/**
 * The end of a user-client revocation, in the account's slot: KEYS: user-client index, user index.
 * ARGV: client id. When the user-client index is empty, the client leaves the user index (atomic
 * with INDEX_ADD, so a grant written meanwhile keeps its client listed).
 */
const OWNER_TIDY = script(`
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[1]) end
return 1
`);

/**
 * Revokes one grant, in its slot. KEYS: grant index, the grant's last-use key, then (mode 'usable')
 * the Grant record and its consumed mark. ARGV: '<prefix>oidc:{<tag>}:', mode: 'all' counts every
 * record deleted, 'usable' only those neither consumed nor expired (and deletes the Grant too).
 * Member keys are built here from the members, always with the grant's own tag: one slot.
 */
const REVOKE_GRANT = script(`
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local n = 0
for _, m in ipairs(members) do
  local consumed = redis.call('DEL', ARGV[1] .. 'consumed:' .. m)
  local deleted = redis.call('DEL', ARGV[1] .. m)
  if ARGV[2] == 'all' then n = n + deleted
  elseif deleted == 1 and consumed == 0 then n = n + 1 end
end
redis.call('DEL', KEYS[1], KEYS[2])
if #KEYS > 2 then redis.call('DEL', KEYS[3], KEYS[4]) end
return n
`);

/**
 * KEYS: record, its consumed mark. ARGV: '<prefix>oidc:{<tag>}:', model, id, the id's tag. Deletes
 * both and the grant index entry (in the same slot when the id carries the grant's tag); returns
 * { uid, userCode } of the payload ('' for none) for the caller to remove those index entries,
 * which live in slots of their own.
 */
const DESTROY = script(`
${TAG_OF}
-- pcall: a key of another type (a record of an older layout) is deleted without its index entries.
local p = redis.pcall('GET', KEYS[1])
local uid, userCode = '', ''
if type(p) ~= 'string' then p = nil end
if p then
  local ok, obj = pcall(cjson.decode, p)
  if ok and type(obj) == 'table' then
    if type(obj.grantId) == 'string' and tagOf(obj.grantId) == ARGV[4] then
      redis.call('ZREM', ARGV[1] .. 'grant:' .. obj.grantId, ARGV[2] .. ':' .. ARGV[3])
    end
    if type(obj.uid) == 'string' then uid = obj.uid end
    if type(obj.userCode) == 'string' then userCode = obj.userCode end
  end
end
redis.call('DEL', KEYS[1], KEYS[2])
return { uid, userCode }
`);

/** KEYS: an index entry. ARGV: the id it must still name to be deleted. */
const DELETE_IF = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
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

/**
 * The node that answered has not loaded the script (a restart, a newly promoted replica). A
 * Cluster that gives up after its redirections reports the last node's NOSCRIPT inside its own
 * message ("Too many Cluster redirections. Last error: ReplyError: NOSCRIPT …").
 */
function isMissingScript(error: unknown): boolean {
  return error instanceof Error && /(?:^|: )NOSCRIPT\b/.test(error.message);
}

async function run(redis: RedisClient, s: Script, keys: string[], args: string[]): Promise<unknown> {
  try {
    // Queued by us where the connection allows (every request runs one or two of these scripts);
    // otherwise (a Cluster, a connection not ready) the same arguments through ioredis.
    const evalArgs: [string, string, ...string[]] = [s.sha, String(keys.length), ...keys, ...args];
    return await (queueCommand(redis, 'evalsha', evalArgs, textReply) ?? redis.evalsha(...evalArgs));
  } catch (error) {
    if (!isMissingScript(error)) throw error;
    return redis.eval(s.source, keys.length, ...keys, ...args);
  }
}

export interface RedisTokenStoreOptions extends HashedIdsOptions {
  /** One node, a Sentinel-managed master or a Cluster: every script touches one slot. */
  redis: RedisClient;
  /** Prefix of every key, e.g. 'sched:' (production) or a unique one per test file. */
  prefix: string;
}

/**
 * An owner-index entry outlives its Grant record by this much: the index and the record are
 * written by different scripts (on a cluster, different nodes and clocks), and the entry must
 * reach every record of the grant for as long as it lives.
 */
const INDEX_SLACK_MS = 60_000;

/** A write outside the grant's slot that follows a record's script (indexes of other owners). */
type SideWrite = () => Promise<unknown>;

/** The production token store, bearer secrets hashed (hashed-ids.ts). `close()` ends the given client. */
export function createRedisTokenStore(options: RedisTokenStoreOptions): TokenStore {
  return withHashedIds(createRawRedisTokenStore(options), options);
}

/**
 * The store keeping every id as given: the layout before bearer secrets were hashed. Only for
 * tests of the upgrade and of the raw layout; everything else uses `createRedisTokenStore`.
 */
export function createRawRedisTokenStore({ redis, prefix }: RedisTokenStoreOptions): TokenStore {
  // The resource API's reads of concurrent requests share one MGET per turn (mget-batch.ts).
  const mget = createMgetBatcher(redis);
  const decodedRecords = new DecodedRecords();
  /** A record's key and its consumed mark's: every script and read takes them together. */
  const recordKeys = (model: string, id: string) => [
    recordKey(prefix, model, id),
    consumedKey(prefix, model, id),
  ];
  // The keys of the resource API's per-request read, built once per access token and version
  // name rather than on every request (strings of 60 to 120 bytes each; issue 22).
  const accessTokenKeys = memoized((id: string) => recordKeys('AccessToken', id), 4096);
  const versionKeyOf = memoized((name: string) => versionKey(prefix, name));

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

  /**
   * The KEYS and ARGV of one record written by CONSUME_AND_UPSERT, appended to `keys` and `args`;
   * its index entries in other slots (uid, userCode, owner index) are appended to `sides`.
   */
  function addWrite(write: RecordWrite, keys: string[], args: string[], sides: SideWrite[]): void {
    const { model, id, payload } = write;
    assertModelName(model);
    const expiresIn = checkExpiresIn(write.expiresInSeconds);
    const ttl = expiresIn === undefined ? '' : String(Math.round(expiresIn * 1000));
    const grantId = typeof payload.grantId === 'string' ? payload.grantId : undefined;
    // Only a record carrying its grant's tag is in the grant's slot, hence in its index.
    const inGrant = grantId !== undefined && sharesGrantTag(id, grantId);
    keys.push(recordKey(prefix, model, id), consumedKey(prefix, model, id));
    if (inGrant) {
      keys.push(
        grantIndexKey(prefix, grantId),
        grantUsedKey(prefix, grantId),
        recordKey(prefix, 'Grant', grantId),
      );
    }
    args.push(
      JSON.stringify(payload),
      ttl,
      typeof payload.consumed === 'number' ? String(Math.floor(payload.consumed)) : '',
      grantMember(model, id),
      inGrant ? '1' : '0',
    );
    if (ttl !== '' && Number(ttl) <= 0) return;
    const setIndex = (key: string) => () =>
      ttl === '' ? redis.set(key, id) : redis.set(key, id, 'PX', Number(ttl));
    if (typeof payload.uid === 'string') sides.push(setIndex(uidIndexKey(prefix, model, payload.uid)));
    if (typeof payload.userCode === 'string')
      sides.push(setIndex(userCodeIndexKey(prefix, model, payload.userCode)));
    const owner = recordOwner(payload);
    const score = ttl === '' ? '' : String(Number(ttl) + INDEX_SLACK_MS);
    if (owner?.kind === 'client' && model === 'Grant') {
      // The owner index holds grants; their tokens are reached through the grant index.
      const { accountId, clientId } = owner;
      sides.push(
        () =>
          run(
            redis,
            INDEX_ADD,
            [userClientIndexKey(prefix, accountId, clientId), userIndexKey(prefix, accountId)],
            [grantMember('Grant', id), score, '0', clientId, score, '1'],
          ),
        () => run(redis, INDEX_ADD, [clientIndexKey(prefix, clientId)], [accountId, score, '1']),
      );
    } else if (owner?.kind === 'account') {
      sides.push(() =>
        run(
          redis,
          INDEX_ADD,
          [sessionIndexKey(prefix, owner.accountId)],
          [grantMember(model, id), score, '0'],
        ),
      );
    }
  }

  /** The record key and consumed mark of an index member ('<Model>:<id>'). */
  function memberKeys(member: string): [string, string] {
    const colon = member.indexOf(':');
    const model = member.slice(0, colon);
    const id = member.slice(colon + 1);
    return [recordKey(prefix, model, id), consumedKey(prefix, model, id)];
  }

  /** REVOKE_GRANT for one grant: 'all' as revokeByGrantId, 'usable' with the Grant (owner revocation). */
  async function revokeGrant(grantId: string, mode: 'all' | 'usable'): Promise<number> {
    const keys = [grantIndexKey(prefix, grantId), grantUsedKey(prefix, grantId)];
    if (mode === 'usable') keys.push(...recordKeys('Grant', grantId));
    return Number(await run(redis, REVOKE_GRANT, keys, [tagPrefix(prefix, tagOf(grantId)), mode]));
  }

  /**
   * Revokes the grants of the user for the client, each in its own slot, then takes them out of
   * the index. Repeats until a pass finds nothing: a grant written meanwhile is caught by the next
   * pass; a rotation after its grant's revocation finds its refresh token gone and writes nothing.
   */
  async function revokeByUserAndClient(accountId: string, clientId: string): Promise<number> {
    if (!isIndexedAccountId(accountId) || !isOwnerId(clientId)) return 0;
    const index = userClientIndexKey(prefix, accountId, clientId);
    let total = 0;
    for (let pass = 0; pass < MAX_REVOKE_PASSES; pass++) {
      const members = await redis.zrange(index, 0, REVOKE_BATCH - 1);
      if (members.length === 0) {
        await run(redis, OWNER_TIDY, [index, userIndexKey(prefix, accountId)], [clientId]);
        return total;
      }
      const counts = await Promise.all(
        members.map((member) => revokeGrant(member.slice('Grant:'.length), 'usable')),
      );
      for (const count of counts) total += count;
      await redis.zrem(index, ...members);
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
    const clients = await redis.zrangebyscore(userIndexKey(prefix, accountId), `(${Date.now()}`, '+inf');
    const found: UserClientGrants[] = [];
    for (const clientId of clients.sort()) {
      const members = await redis.zrangebyscore(
        userClientIndexKey(prefix, accountId, clientId),
        `(${Date.now()}`,
        '+inf',
      );
      const grantIds = members.map((member) => member.slice('Grant:'.length));
      // Each grant is in its own slot: one GET each, sent together.
      const [payloads, used] = await Promise.all([
        Promise.all(grantIds.map((grantId) => redis.get(recordKey(prefix, 'Grant', grantId)))),
        Promise.all(grantIds.map((grantId) => redis.get(grantUsedKey(prefix, grantId)))),
      ]);
      const scopes = new Set<string>();
      let first: number | undefined;
      let last = 0;
      payloads.forEach((text, i) => {
        if (text === null) return;
        const grant = JSON.parse(text) as { iat?: unknown; openid?: { scope?: unknown } };
        if (typeof grant.openid?.scope === 'string')
          for (const scope of grant.openid.scope.split(' ')) if (scope !== '') scopes.add(scope);
        const iat = typeof grant.iat === 'number' ? grant.iat : 0;
        first = Math.min(first ?? iat, iat);
        const usedMs = Number(used[i] ?? Number.NaN);
        last = Math.max(last, iat, Number.isFinite(usedMs) ? Math.floor(usedMs / 1000) : 0);
      });
      if (first === undefined) continue;
      found.push({ clientId, scopes: [...scopes].sort(), firstGrantedAt: first, lastIssuedAt: last });
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
    const sides: SideWrite[] = [];
    for (const write of writes) addWrite(write, keys, args, sides);
    const reply = run(redis, CONSUME_AND_UPSERT, keys, args);
    // The token endpoint's writes have no entries elsewhere: one command, as before.
    if (sides.length === 0) return reply;
    // Other slots' entries follow the records: issued with them when nothing is consumed, after
    // the settlement otherwise (a refused request indexes nothing).
    if (!consume) {
      const [result] = await Promise.all([reply, ...sides.map((side) => side())]);
      return result;
    }
    const result = await reply;
    if (result === 1) await Promise.all(sides.map((side) => side()));
    return result;
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
      const tag = tagOf(id);
      const [uid, userCode] = (await run(redis, DESTROY, recordKeys(model, id), [
        tagPrefix(prefix, tag),
        model,
        id,
        tag,
      ])) as [string, string];
      // Index entries in slots of their own, deleted only while they still name this record.
      await Promise.all([
        uid !== '' && run(redis, DELETE_IF, [uidIndexKey(prefix, model, uid)], [id]),
        userCode !== '' && run(redis, DELETE_IF, [userCodeIndexKey(prefix, model, userCode)], [id]),
      ]);
    },

    revokeByGrantId(grantId) {
      return revokeGrant(grantId, 'all');
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
      let total = 0;
      for (let pass = 0; pass < MAX_REVOKE_PASSES; pass++) {
        const members = await redis.zrange(index, 0, REVOKE_BATCH - 1);
        if (members.length === 0) return total;
        // Each session is in its own slot: its record and mark are deleted by one DEL.
        const counts = await Promise.all(
          members.map(async (member) => {
            const [record, mark] = memberKeys(member);
            const [deleted] = await Promise.all([redis.del(record), redis.del(mark)]);
            return deleted;
          }),
        );
        for (const count of counts) total += count;
        await redis.zrem(index, ...members);
      }
      throw new Error(`revokeSessionsOfUser(${accountId}) did not settle`);
    },

    listGrantsOfUser,

    async hit(key, windowSeconds): Promise<RateHit> {
      const windowMs = Math.max(1, Math.ceil(checkWindow(windowSeconds) * 1000));
      const [count, ttlMs] = (await run(redis, HIT, [rateKey(prefix, key)], [String(windowMs)])) as [
        number,
        number,
      ];
      return { count, resetInSeconds: Math.max(1, Math.ceil(ttlMs / 1000)) };
    },

    async bumpVersion(key) {
      return redis.incr(versionKey(prefix, key));
    },

    async readVersions(keys) {
      if (keys.length === 0) return [];
      const values = await mget(keys.map(versionKeyOf));
      return values.map(toVersion);
    },

    findWithVersions<P extends TokenPayload>(
      model: string,
      id: string,
      versionKeys: readonly string[],
    ): Promise<RecordWithVersions<P>> {
      // Not async: the API reads this on every request, and an async frame waiting on the batch's
      // promise cost more than one continuation. Errors are rejections all the same.
      let keys: string[];
      try {
        assertModelName(model);
        // The record, its consumed mark and the versions in one MGET (shared with the other reads
        // of this turn): ioredis's cost is per command, not per key (npm run bench redis-read).
        const [record, consumed] = model === 'AccessToken' ? accessTokenKeys(id) : recordKeys(model, id);
        // Arrays of their final length at once: pushing grows them several times per request.
        keys = new Array<string>(2 + versionKeys.length);
        keys[0] = record!;
        keys[1] = consumed!;
        for (let i = 0; i < versionKeys.length; i++) keys[i + 2] = versionKeyOf(versionKeys[i]!);
      } catch (error) {
        return Promise.reject(error);
      }
      return mget(keys).then((reply) => {
        const versions = new Array<number>(Math.max(0, reply.length - 2));
        for (let i = 2; i < reply.length; i++) versions[i - 2] = toVersion(reply[i] ?? null);
        // Access tokens are read on every API request that carries them: parsed once, shared.
        // Other records (a refresh token, read once per rotation) are parsed afresh, mutable.
        const record =
          model === 'AccessToken'
            ? decodedRecords.decode<P>(reply[0], reply[1])
            : decodeRecord<P>(reply[0], reply[1]);
        return { record, versions };
      });
    },

    async hashingBegan(now) {
      const key = `${prefix}${HASHED_IDS_MARK}`;
      if ((await redis.set(key, String(Math.floor(now)), 'NX')) === 'OK') return Math.floor(now);
      const value = Number(await redis.get(key));
      // Deleted in between (an operator starting the fallback over) or not a time: from now on.
      return Number.isFinite(value) && value > 0 ? value : Math.floor(now);
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
