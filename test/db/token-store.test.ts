import { randomUUID } from 'node:crypto';
import { withHashedIds } from '@sched/db/token-store/hashed-ids';
import {
  consumedKey,
  grantIndexKey,
  grantMember,
  HASHED_IDS_MARK,
  rateKey,
  recordKey,
  storedTokenId,
  taggedTokenId,
  TOKEN_TABLES,
  uidIndexKey,
  userCodeIndexKey,
  versionKey,
} from '@sched/db/token-store/keys';
import type { TokenPayload, TokenStore } from '@sched/db/token-store/types';
import test, { type ExecutionContext } from 'ava';
import { migrations } from '@sched/migrations';
import { createRawSqlTokenStore, createSqlTokenStore } from '@sched/db/token-store/sql';
import { createRawRedisTokenStore, createRedisTokenStore } from '@sched/db/token-store/redis';
import { createTestDatabase } from '../support/database.ts';
import { dumpTokenStore, leaks } from '../support/store-dump.ts';
import { type TokenStoreHarness, tokenStoreBackends } from '../support/token-stores.ts';

// One contract, three stores: Redis (REDIS_URL), Postgres (DATABASE_URL) and PGlite (always).

type Harness = TokenStoreHarness;
const backends = tokenStoreBackends();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const unique = (label: string) => `${label}-${randomUUID()}`;
/** An id of a code or token of `grantId`, as the auth service makes them: in the grant's slot. */
const ofGrant = (grantId: string, label: string) => taggedTokenId(unique(label), grantId);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** `store` with every call counted by method name. */
function counted(store: TokenStore): { store: TokenStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const spy = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
        return value.apply(target, args);
      };
    },
  }) as TokenStore;
  return { store: spy, calls };
}

const DAY_MS = 24 * 3600 * 1000;

function accessToken(id: string, grantId: string, extra: Partial<TokenPayload> = {}): TokenPayload {
  const iat = nowSeconds();
  return {
    kind: 'AccessToken',
    jti: id,
    accountId: '42',
    clientId: 'client-1',
    scope: 'BOOKING_READ PROFILE_READ',
    iat,
    exp: iat + 1800,
    grantId,
    gty: 'authorization_code',
    extra: { legacy: false },
    ...extra,
  };
}

for (const backend of backends) {
  let h: Harness;
  test.before(async () => {
    h = await backend.open();
  });
  test.after.always(async () => {
    await h?.drop();
  });
  const it = (title: string, body: (t: ExecutionContext, store: TokenStore) => Promise<void>) =>
    test(`${backend.name}: ${title}`, (t) => body(t, h.store));
  const onlyRedis = backend.name.startsWith('redis') ? it : () => {};
  const onlySql = backend.name.startsWith('redis') ? () => {} : it;

  it('upsert then find returns the payload; missing records are undefined', async (t, store) => {
    const id = unique('at');
    const payload = accessToken(id, unique('grant'));
    await store.upsert('AccessToken', id, payload, 1800);
    t.deepEqual(await store.find('AccessToken', id), payload);
    t.is(await store.find('AccessToken', unique('missing')), undefined);
    t.is(await store.find('RefreshToken', id), undefined, 'records are per model');
  });

  it('upsert replaces the whole record', async (t, store) => {
    const id = unique('sess');
    await store.upsert(
      'Session',
      id,
      { kind: 'Session', jti: id, accountId: '1', uid: unique('uid'), extra: 'x' },
      600,
    );
    const second = { kind: 'Session', jti: id, accountId: '2', uid: unique('uid') };
    await store.upsert('Session', id, second, 600);
    t.deepEqual(await store.find('Session', id), second);
  });

  it('a record without expiresIn does not expire; any model name works', async (t, store) => {
    const id = unique('rd');
    await store.upsert('ReplayDetection', id, { kind: 'ReplayDetection', iss: 'x' });
    t.deepEqual(await store.find('ReplayDetection', id), { kind: 'ReplayDetection', iss: 'x' });
    if (h.redis) t.is(await h.redis.client.ttl(recordKey(h.redis.prefix, 'ReplayDetection', id)), -1);
    if (h.knex) {
      const row = await h.knex(TOKEN_TABLES.records).where({ model: 'ReplayDetection', id }).first();
      t.is(row.expires_at, null);
    }
  });

  it('model names are restricted to letters, digits and underscores, and not the key spaces', async (t, store) => {
    await t.throwsAsync(() => store.upsert('Access:Token', 'x', {}), { instanceOf: TypeError });
    await t.throwsAsync(() => store.find('', 'x'), { instanceOf: TypeError });
    // `<prefix>oidc:grant:...`, `uid:`, `userCode:` and `consumed:` hold indexes and marks.
    for (const reserved of ['grant', 'uid', 'userCode', 'consumed']) {
      await t.throwsAsync(() => store.find(reserved, 'x'), { instanceOf: TypeError }, reserved);
    }
  });

  it('an expired record is never returned, consumed or found by index', async (t, store) => {
    const grantId = unique('grant');
    const id = ofGrant(grantId, 'code');
    const uid = unique('uid');
    await store.upsert(
      'AuthorizationCode',
      id,
      { kind: 'AuthorizationCode', uid, grantId, userCode: uid },
      -5,
    );
    t.is(await store.find('AuthorizationCode', id), undefined);
    t.is(await store.findByUid('AuthorizationCode', uid), undefined);
    t.is(await store.findByUserCode('AuthorizationCode', uid), undefined);
    t.false(await store.consume('AuthorizationCode', id));
    t.is((await store.findWithVersions('AuthorizationCode', id, ['k'])).record, undefined);
  });

  it('records expire after their TTL', async (t, store) => {
    const id = unique('at');
    await store.upsert('AccessToken', id, accessToken(id, unique('grant')), 2);
    t.truthy(await store.find('AccessToken', id));
    await sleep(2600);
    t.is(await store.find('AccessToken', id), undefined);
    t.false(await store.consume('AccessToken', id));
  });

  onlySql('sweepExpired deletes expired rows only', async (t, store) => {
    const expired = unique('old');
    const live = unique('live');
    const forever = unique('forever');
    await store.upsert('Interaction', expired, { kind: 'Interaction' }, -1);
    await store.upsert('Interaction', live, { kind: 'Interaction' }, 600);
    await store.upsert('Grant', forever, { kind: 'Grant' });
    const rows = () => h.knex!(TOKEN_TABLES.records).whereIn('id', [expired, live, forever]).pluck('id');
    t.is((await rows()).length, 3, 'the expired row stays until swept');
    t.true((await store.sweepExpired!()) >= 1);
    t.deepEqual((await rows()).sort(), [forever, live].sort());
  });

  it('consume: exactly one of 50 concurrent callers wins', async (t, store) => {
    const id = unique('code');
    await store.upsert('AuthorizationCode', id, { kind: 'AuthorizationCode', grantId: unique('grant') }, 60);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => store.consume('AuthorizationCode', id)),
    );
    t.is(results.filter(Boolean).length, 1);
    t.false(await store.consume('AuthorizationCode', id), 'a later call loses too');
  });

  it('consume: refresh token rotation race, 50 concurrent callers on a record without TTL', async (t, store) => {
    const id = unique('rt');
    await store.upsert('RefreshToken', id, { kind: 'RefreshToken', grantId: unique('grant') });
    const results = await Promise.all(Array.from({ length: 50 }, () => store.consume('RefreshToken', id)));
    t.is(results.filter(Boolean).length, 1);
  });

  it('consume: the consumed time shows in find and findWithVersions; missing records are not consumed', async (t, store) => {
    const id = unique('code');
    const payload = { kind: 'AuthorizationCode', jti: id, grantId: unique('grant'), scope: 'A' };
    await store.upsert('AuthorizationCode', id, payload, 60);
    t.is((await store.find('AuthorizationCode', id))?.consumed, undefined);
    const before = nowSeconds();
    t.true(await store.consume('AuthorizationCode', id));
    const found = await store.find('AuthorizationCode', id);
    t.true(Number.isInteger(found?.consumed));
    t.true(Math.abs(found!.consumed! - before) <= 5, 'epoch seconds of the store clock');
    t.deepEqual({ ...found, consumed: undefined }, { ...payload, consumed: undefined });
    t.is((await store.findWithVersions('AuthorizationCode', id, [])).record?.consumed, found?.consumed);
    t.false(await store.consume('AuthorizationCode', unique('missing')));
  });

  it('consumeAndUpsert: consumes, then writes every record (indexed as by upsert)', async (t, store) => {
    const grantId = unique('grant');
    const used = ofGrant(grantId, 'rt');
    await store.upsert('RefreshToken', used, { kind: 'RefreshToken', grantId }, 600);
    const [at, rt] = [ofGrant(grantId, 'at'), ofGrant(grantId, 'rt')];
    const settled = await store.consumeAndUpsert({ model: 'RefreshToken', id: used }, [
      { model: 'AccessToken', id: at, payload: accessToken(at, grantId), expiresInSeconds: 1800 },
      { model: 'RefreshToken', id: rt, payload: { kind: 'RefreshToken', grantId }, expiresInSeconds: 600 },
    ]);
    t.true(settled);
    t.true(Number.isInteger((await store.find('RefreshToken', used))?.consumed));
    t.is((await store.find('AccessToken', at))?.jti, at);
    t.is((await store.find('RefreshToken', rt))?.consumed, undefined);
    t.is(await store.revokeByGrantId(grantId), 3, 'the new records joined the grant index');
  });

  it('consumeAndUpsert: a consumed, missing or expired record writes nothing', async (t, store) => {
    const grantId = unique('grant');
    const used = ofGrant(grantId, 'code');
    await store.upsert('AuthorizationCode', used, { kind: 'AuthorizationCode', grantId }, 60);
    t.true(await store.consume('AuthorizationCode', used));
    const expired = ofGrant(grantId, 'code');
    await store.upsert('AuthorizationCode', expired, { kind: 'AuthorizationCode', grantId }, 1);
    await sleep(1100);
    for (const id of [used, ofGrant(grantId, 'missing'), expired]) {
      const at = ofGrant(grantId, 'at');
      const settled = await store.consumeAndUpsert({ model: 'AuthorizationCode', id }, [
        { model: 'AccessToken', id: at, payload: accessToken(at, grantId), expiresInSeconds: 1800 },
      ]);
      t.false(settled);
      t.is(await store.find('AccessToken', at), undefined, 'nothing written');
    }
  });

  it('consumeAndUpsert: of 50 concurrent callers exactly one writes its tokens', async (t, store) => {
    const grantId = unique('grant');
    const id = ofGrant(grantId, 'rt');
    await store.upsert('RefreshToken', id, { kind: 'RefreshToken', grantId }, 600);
    const issued = Array.from({ length: 50 }, () => ofGrant(grantId, 'at'));
    const results = await Promise.all(
      issued.map((at) =>
        store.consumeAndUpsert({ model: 'RefreshToken', id }, [
          { model: 'AccessToken', id: at, payload: accessToken(at, grantId), expiresInSeconds: 1800 },
        ]),
      ),
    );
    t.is(results.filter(Boolean).length, 1);
    const stored = await Promise.all(issued.map((at) => store.find('AccessToken', at)));
    t.deepEqual(
      stored.map((record) => record !== undefined),
      results,
      'only the winner wrote its token',
    );
  });

  it('consumeAndUpsertOrRead: the winner writes; a later caller reads what it kept, nothing else', async (t, store) => {
    const grantId = unique('grant');
    const id = ofGrant(grantId, 'rt');
    await store.upsert('RefreshToken', id, { kind: 'RefreshToken', grantId }, 600);
    const kept = { kind: 'Kept', sealed: 'opaque' };
    const at = ofGrant(grantId, 'at');
    const first = await store.consumeAndUpsertOrRead(
      { model: 'RefreshToken', id },
      [
        { model: 'AccessToken', id: at, payload: accessToken(at, grantId), expiresInSeconds: 1800 },
        { model: 'RefreshRetry', id, payload: kept, expiresInSeconds: 10 },
      ],
      { model: 'RefreshRetry', id },
    );
    t.deepEqual(first, { settled: true });
    t.true(Number.isInteger((await store.find('RefreshToken', id))?.consumed));
    const late = ofGrant(grantId, 'at');
    const second = await store.consumeAndUpsertOrRead(
      { model: 'RefreshToken', id },
      [{ model: 'AccessToken', id: late, payload: accessToken(late, grantId), expiresInSeconds: 1800 }],
      { model: 'RefreshRetry', id },
    );
    t.deepEqual(second, { settled: false, found: kept });
    t.is(await store.find('AccessToken', late), undefined, 'the loser wrote nothing');
    const missing = await store.consumeAndUpsertOrRead(
      { model: 'RefreshToken', id: ofGrant(grantId, 'missing') },
      [],
      {
        model: 'RefreshRetry',
        id,
      },
    );
    t.deepEqual(missing, { settled: false, found: kept }, 'a missing record reads the other one too');
  });

  it('consumeAndUpsertOrRead: nothing kept, or kept and expired, is found as undefined', async (t, store) => {
    const id = unique('rt');
    await store.upsert('RefreshToken', id, { kind: 'RefreshToken' }, 600);
    t.deepEqual(
      await store.consumeAndUpsertOrRead(
        { model: 'RefreshToken', id },
        [{ model: 'RefreshRetry', id, payload: { kind: 'Kept' }, expiresInSeconds: 1 }],
        { model: 'RefreshRetry', id },
      ),
      { settled: true },
    );
    await sleep(1100);
    t.deepEqual(
      await store.consumeAndUpsertOrRead({ model: 'RefreshToken', id }, [], { model: 'RefreshRetry', id }),
      { settled: false, found: undefined },
    );
    t.truthy(await store.find('RefreshToken', id), 'the consumed record stays for reuse detection');
  });

  it('consumeAndUpsertOrRead: of 50 concurrent callers one writes, the 49 others read its record', async (t, store) => {
    const grantId = unique('grant');
    const id = ofGrant(grantId, 'rt');
    await store.upsert('RefreshToken', id, { kind: 'RefreshToken', grantId }, 600);
    const issued = Array.from({ length: 50 }, () => ofGrant(grantId, 'at'));
    const results = await Promise.all(
      issued.map((at) =>
        store.consumeAndUpsertOrRead(
          { model: 'RefreshToken', id },
          [
            { model: 'AccessToken', id: at, payload: accessToken(at, grantId), expiresInSeconds: 1800 },
            { model: 'RefreshRetry', id, payload: { kind: 'Kept', at }, expiresInSeconds: 10 },
          ],
          { model: 'RefreshRetry', id },
        ),
      ),
    );
    const winners = issued.filter((_, i) => results[i]!.settled);
    t.is(winners.length, 1);
    for (const result of results) {
      if (!result.settled)
        t.deepEqual(result.found, { kind: 'Kept', at: winners[0] }, 'never "consumed but not kept"');
    }
    const stored = await Promise.all(issued.map((at) => store.find('AccessToken', at)));
    t.is(stored.filter(Boolean).length, 1, 'only the winner wrote its token');
  });

  it('consumeAndUpsert without a record to consume writes, and skips records already expired', async (t, store) => {
    const grantId = unique('grant');
    const [live, dead] = [ofGrant(grantId, 'at'), ofGrant(grantId, 'at')];
    t.true(
      await store.consumeAndUpsert(undefined, [
        { model: 'AccessToken', id: dead, payload: accessToken(dead, grantId), expiresInSeconds: -1 },
        { model: 'AccessToken', id: live, payload: accessToken(live, grantId), expiresInSeconds: 60 },
      ]),
    );
    t.is(await store.find('AccessToken', dead), undefined);
    t.is((await store.find('AccessToken', live))?.jti, live);
    t.true(await store.consumeAndUpsert(undefined, []));
  });

  it('upsert with payload.consumed keeps the record consumed', async (t, store) => {
    const id = unique('rt');
    await store.upsert('RefreshToken', id, { kind: 'RefreshToken', consumed: 1_700_000_000 }, 60);
    t.is((await store.find('RefreshToken', id))?.consumed, 1_700_000_000);
    t.false(await store.consume('RefreshToken', id));
    await store.upsert('RefreshToken', id, { kind: 'RefreshToken' }, 60);
    t.is((await store.find('RefreshToken', id))?.consumed, undefined, 're-saved without consumed');
    t.true(await store.consume('RefreshToken', id));
  });

  it('findByUid and findByUserCode', async (t, store) => {
    const id = unique('interaction');
    const uid = unique('uid');
    const userCode = unique('CODE');
    const payload = { kind: 'Interaction', uid, userCode };
    await store.upsert('Interaction', id, payload, 600);
    t.deepEqual(await store.findByUid('Interaction', uid), payload);
    t.deepEqual(await store.findByUserCode('Interaction', userCode), payload);
    t.is(await store.findByUid('Session', uid), undefined, 'indexes are per model');
    t.is(await store.findByUid('Interaction', unique('other')), undefined);

    const renamed = { kind: 'Interaction', uid: unique('uid2') };
    await store.upsert('Interaction', id, renamed, 600);
    t.is(await store.findByUid('Interaction', uid), undefined, 'the old uid no longer finds the record');
    t.deepEqual(await store.findByUid('Interaction', renamed.uid), renamed);

    await store.destroy('Interaction', id);
    t.is(await store.findByUid('Interaction', renamed.uid), undefined);
  });

  it('destroy deletes one record', async (t, store) => {
    const grantId = unique('grant');
    const a = ofGrant(grantId, 'at');
    const b = ofGrant(grantId, 'at');
    await store.upsert('AccessToken', a, accessToken(a, grantId), 600);
    await store.upsert('AccessToken', b, accessToken(b, grantId), 600);
    await store.destroy('AccessToken', a);
    t.is(await store.find('AccessToken', a), undefined);
    t.truthy(await store.find('AccessToken', b));
    await t.notThrowsAsync(() => store.destroy('AccessToken', ofGrant(grantId, 'missing')));
    t.is(await store.revokeByGrantId(grantId), 1, 'the destroyed record is no longer counted');
  });

  it('revokeByGrantId deletes every record of the grant, of every model, and nothing else', async (t, store) => {
    const grantA = unique('grantA');
    const grantB = unique('grantB');
    const at = ofGrant(grantA, 'at');
    const rt = ofGrant(grantA, 'rt');
    const code = ofGrant(grantA, 'code');
    const other = ofGrant(grantB, 'at');
    await store.upsert('AccessToken', at, accessToken(at, grantA), 1800);
    await store.upsert('RefreshToken', rt, { kind: 'RefreshToken', grantId: grantA }, 30 * 86400);
    await store.upsert('AuthorizationCode', code, { kind: 'AuthorizationCode', grantId: grantA }, 60);
    await store.consume('AuthorizationCode', code);
    await store.upsert('AccessToken', other, accessToken(other, grantB), 1800);
    await store.upsert('Grant', grantA, { kind: 'Grant', jti: grantA }, 30 * 86400);

    t.is(await store.revokeByGrantId(grantA), 3);
    t.is(await store.find('AccessToken', at), undefined);
    t.is(await store.find('RefreshToken', rt), undefined);
    t.is(await store.find('AuthorizationCode', code), undefined);
    t.truthy(await store.find('AccessToken', other), 'another grant is untouched');
    t.truthy(await store.find('Grant', grantA), "the Grant record itself is oidc-provider's to destroy");
    t.is(await store.revokeByGrantId(grantA), 0);
    t.is(await store.revokeByGrantId(unique('none')), 0);
  });

  it('hit counts a fixed window atomically', async (t, store) => {
    const key = unique('ip');
    const first = await store.hit(key, 60);
    t.is(first.count, 1);
    t.true(first.resetInSeconds >= 59 && first.resetInSeconds <= 60);
    t.is((await store.hit(key, 60)).count, 2);
    const counts = (await Promise.all(Array.from({ length: 20 }, () => store.hit(key, 60)))).map(
      (r) => r.count,
    );
    t.deepEqual(
      counts.sort((x, y) => x - y),
      Array.from({ length: 20 }, (_, i) => i + 3),
    );
    t.is((await store.hit(unique('other'), 60)).count, 1, 'keys are independent');
  });

  it('hit starts a new window when the old one ends', async (t, store) => {
    const key = unique('login');
    // A 2 s window: two back-to-back hits must land in one window even on a loaded machine.
    t.is((await store.hit(key, 2)).count, 1);
    t.is((await store.hit(key, 2)).count, 2);
    await sleep(2300);
    const next = await store.hit(key, 2);
    t.is(next.count, 1);
    t.true(next.resetInSeconds >= 1 && next.resetInSeconds <= 2);
  });

  it('versions: 0 until bumped, then counting up', async (t, store) => {
    const a = unique('client');
    const b = unique('user');
    t.deepEqual(await store.readVersions([a, b]), [0, 0]);
    t.is(await store.bumpVersion(a), 1);
    t.is(await store.bumpVersion(a), 2);
    t.is(await store.bumpVersion(b), 1);
    t.deepEqual(await store.readVersions([b, a, unique('never')]), [1, 2, 0]);
    t.deepEqual(await store.readVersions([]), []);
    const bumps = await Promise.all(Array.from({ length: 10 }, () => store.bumpVersion(b)));
    t.deepEqual(
      bumps.sort((x, y) => x - y),
      Array.from({ length: 10 }, (_, i) => i + 2),
    );
  });

  it('findWithVersions returns the record and the versions together', async (t, store) => {
    const id = unique('at');
    const payload = accessToken(id, unique('grant'));
    const client = unique('client');
    const user = unique('user');
    await store.upsert('AccessToken', id, payload, 1800);
    await store.bumpVersion(user);
    t.deepEqual(await store.findWithVersions('AccessToken', id, [client, user]), {
      record: payload,
      versions: [0, 1],
    });
    t.deepEqual(await store.findWithVersions('AccessToken', unique('missing'), [user]), {
      record: undefined,
      versions: [1],
    });
    t.deepEqual(await store.findWithVersions('AccessToken', id, []), { record: payload, versions: [] });
  });

  it('ping answers', async (t, store) => {
    await t.notThrowsAsync(() => store.ping());
  });

  onlyRedis('layout: keys, types and TTLs are the documented ones (keys.ts)', async (t) => {
    const { client, prefix } = h.redis!;
    const store = h.store;
    const grantId = unique('grant');
    const id = ofGrant(grantId, 'at');
    const uid = unique('uid');
    const payload = accessToken(id, grantId, { uid, userCode: 'ABCD-EFGH' });
    await store.upsert('AccessToken', id, payload, 1800);

    // Keyed by the token's hash and its grant's tag; the payload holds no copy of the token.
    const sid = storedTokenId(id);
    t.regex(sid, /^[A-Za-z0-9_-]{43}\./);
    t.is(sid.slice(44), grantId);
    const key = recordKey(prefix, 'AccessToken', sid);
    t.is(key, `${prefix}oidc:{${grantId}}:AccessToken:${sid}`, "in the grant's slot");
    t.is(await client.type(key), 'string');
    const { jti: _jti, ...withoutJti } = payload;
    t.deepEqual(JSON.parse((await client.get(key))!), withoutJti);
    t.is(await client.exists(recordKey(prefix, 'AccessToken', id)), 0, 'nothing under the token itself');
    const mark = consumedKey(prefix, 'AccessToken', sid);
    t.is(mark, `${prefix}oidc:{${grantId}}:consumed:AccessToken:${sid}`);
    t.is(await client.exists(mark), 0, 'no mark until consumed');
    const ttl = await client.ttl(key);
    t.true(ttl > 1790 && ttl <= 1800);

    const grantKey = grantIndexKey(prefix, grantId);
    t.is(grantKey, `${prefix}oidc:{${grantId}}:grant:${grantId}`);
    t.is(await client.type(grantKey), 'zset');
    t.deepEqual(await client.zrange(grantKey, 0, -1), [grantMember('AccessToken', sid)]);
    t.is(grantMember('AccessToken', sid), `AccessToken:${sid}`);
    t.true((await client.ttl(grantKey)) > 1790);

    t.is(uidIndexKey(prefix, 'AccessToken', uid), `${prefix}oidc:uid:AccessToken:${uid}`);
    t.is(await client.get(uidIndexKey(prefix, 'AccessToken', uid)), sid);
    t.is(
      userCodeIndexKey(prefix, 'AccessToken', 'ABCD-EFGH'),
      `${prefix}oidc:userCode:AccessToken:ABCD-EFGH`,
    );
    t.is(await client.get(userCodeIndexKey(prefix, 'AccessToken', 'ABCD-EFGH')), sid);

    await store.consume('AccessToken', id);
    t.regex((await client.get(mark))!, /^\d{10}$/);
    t.true((await client.ttl(key)) > 1790, 'consume keeps the TTL');
    const markTtl = await client.ttl(mark);
    t.true(markTtl > 1790 && markTtl <= 1800, 'the mark expires with the record');
    await store.destroy('AccessToken', id);
    t.is(await client.exists(key, mark), 0, 'destroy deletes the record and its mark');

    const rate = unique('rate');
    await store.hit(rate, 60);
    t.is(rateKey(prefix, rate), `${prefix}rate:${rate}`);
    t.is(await client.get(rateKey(prefix, rate)), '1');
    t.true((await client.pttl(rateKey(prefix, rate))) > 0);

    const ver = unique('ver');
    await store.bumpVersion(ver);
    t.is(versionKey(prefix, ver), `${prefix}ver:${ver}`);
    t.is(await client.get(versionKey(prefix, ver)), '1');
    t.is(await client.ttl(versionKey(prefix, ver)), -1);

    await store.destroy('AccessToken', id);
    t.is(await client.exists(key), 0);
    t.is(await client.exists(uidIndexKey(prefix, 'AccessToken', uid)), 0, 'destroy drops the indexes too');
    t.deepEqual(await client.zrange(grantKey, 0, -1), []);
  });

  onlyRedis(
    'layout: the grant index lives as long as its longest member and drops expired ones',
    async (t) => {
      const { client, prefix } = h.redis!;
      const store = h.store;
      const grantId = unique('grant');
      const grantKey = grantIndexKey(prefix, grantId);
      const short = ofGrant(grantId, 'at');
      await store.upsert('AccessToken', short, accessToken(short, grantId), 1);
      const long = ofGrant(grantId, 'rt');
      await store.upsert('RefreshToken', long, { kind: 'RefreshToken', grantId }, 3000);
      t.true((await client.ttl(grantKey)) > 2990, 'extended to the longest member');
      const mid = ofGrant(grantId, 'at');
      await store.upsert('AccessToken', mid, accessToken(mid, grantId), 1800);
      t.true((await client.ttl(grantKey)) > 2990, 'never shortened');
      await sleep(1300);
      const late = ofGrant(grantId, 'at');
      await store.upsert('AccessToken', late, accessToken(late, grantId), 1800);
      t.deepEqual(
        (await client.zrange(grantKey, 0, -1)).sort(),
        [
          grantMember('AccessToken', storedTokenId(mid)),
          grantMember('AccessToken', storedTokenId(late)),
          grantMember('RefreshToken', storedTokenId(long)),
        ].sort(),
        'the expired member was pruned',
      );
      const forever = ofGrant(grantId, 'x');
      await store.upsert('DeviceCode', forever, { kind: 'DeviceCode', grantId });
      t.is(await client.ttl(grantKey), -1, 'a member without expiry keeps the index');
    },
  );

  onlySql('layout: token_records and token_counters rows', async (t) => {
    const knex = h.knex!;
    const store = h.store;
    const grantId = unique('grant');
    const id = ofGrant(grantId, 'at');
    const uid = unique('uid');
    const payload = accessToken(id, grantId, { uid, userCode: 'WXYZ' });
    await store.upsert('AccessToken', id, payload, 1800);
    await store.consume('AccessToken', id);
    t.is(await knex(TOKEN_TABLES.records).where({ id }).first(), undefined, 'no row under the token itself');
    const row = await knex(TOKEN_TABLES.records)
      .where({ model: 'AccessToken', id: storedTokenId(id) })
      .first(
        'payload',
        'grant_id',
        'uid',
        'user_code',
        knex.raw('consumed_at is not null and consumed_at <= now() as consumed'),
        knex.raw(
          "expires_at between now() + interval '1790 seconds' and now() + interval '1800 seconds' as ttl_ok",
        ),
      );
    const { jti: _jti, ...withoutJti } = payload;
    t.deepEqual(row, {
      payload: withoutJti,
      grant_id: grantId,
      uid,
      user_code: 'WXYZ',
      consumed: true,
      ttl_ok: true,
    });

    const rate = unique('rate');
    const ver = unique('ver');
    await store.hit(rate, 60);
    await store.bumpVersion(ver);
    const counters = await knex(TOKEN_TABLES.counters)
      .whereIn('key', [`rate:${rate}`, `ver:${ver}`])
      .orderBy('key')
      .select('key', 'value', knex.raw('expires_at is not null as expires'));
    t.deepEqual(counters, [
      { key: `rate:${rate}`, value: 1, expires: true },
      { key: `ver:${ver}`, value: 1, expires: false },
    ]);
  });
  /** Everything the store holds, as text (every Redis key and value, or every row). */
  const dump = () =>
    dumpTokenStore(h.redis ? { redis: h.redis.client, prefix: h.redis.prefix } : { knex: h.knex! });

  it('bearer secrets are stored hashed: no key, id, payload or index holds one', async (t, store) => {
    const grantId = unique('grant');
    const [code, at, rt, next] = ['code', 'at', 'rt', 'rt'].map((label) => ofGrant(grantId, label)) as [
      string,
      string,
      string,
      string,
    ];
    const session = unique('sess');
    const owner = { accountId: '7', clientId: 'client-1' };
    await store.upsert('Grant', grantId, { kind: 'Grant', jti: grantId, ...owner }, 600);
    await store.upsert(
      'AuthorizationCode',
      code,
      { kind: 'AuthorizationCode', jti: code, grantId, ...owner },
      60,
    );
    await store.consumeAndUpsert({ model: 'AuthorizationCode', id: code }, [
      { model: 'AccessToken', id: at, payload: accessToken(at, grantId, owner), expiresInSeconds: 600 },
      {
        model: 'RefreshToken',
        id: rt,
        payload: { kind: 'RefreshToken', jti: rt, grantId, ...owner },
        expiresInSeconds: 600,
      },
    ]);
    const rotated = await store.consumeAndUpsertOrRead(
      { model: 'RefreshToken', id: rt },
      [
        {
          model: 'RefreshToken',
          id: next,
          payload: { kind: 'RefreshToken', jti: next, grantId, ...owner },
          expiresInSeconds: 600,
        },
        {
          model: 'RefreshRetry',
          id: rt,
          payload: { kind: 'RefreshRetry', sealed: 'x' },
          expiresInSeconds: 10,
        },
      ],
      { model: 'RefreshRetry', id: rt },
    );
    t.deepEqual(rotated, { settled: true });
    const sessionUid = unique('uid');
    await store.upsert(
      'Session',
      session,
      { kind: 'Session', jti: session, uid: sessionUid, accountId: '7' },
      600,
    );
    const interaction = unique('interaction');
    await store.upsert(
      'Interaction',
      interaction,
      {
        kind: 'Interaction',
        jti: interaction,
        session: { accountId: '7', uid: sessionUid, cookie: session },
      },
      600,
    );

    const secrets = [code, at, rt, next, session].flatMap((id) => [id, id.split('.')[0]!]);
    t.deepEqual(leaks(await dump(), secrets), []);

    // Each is still found by its value, with its id as `jti` (oidc-provider's field).
    t.is((await store.find('AuthorizationCode', code))?.jti, code);
    t.true(Number.isInteger((await store.find('AuthorizationCode', code))?.consumed));
    t.is((await store.find('AccessToken', at))?.jti, at);
    t.is((await store.findWithVersions('AccessToken', at, [])).record?.jti, at);
    t.is((await store.findWithVersions('AccessToken', at, [])).record?.jti, at, 'a shared record too');
    t.is((await store.find('RefreshToken', next))?.jti, next);
    t.deepEqual(await store.find('RefreshRetry', rt), { kind: 'RefreshRetry', sealed: 'x' });
    t.is((await store.find('Session', session))?.jti, session);
    t.is((await store.findByUid('Session', sessionUid))?.accountId, '7', 'found by uid, without its id');
    t.is((await store.findByUid('Session', sessionUid))?.jti, undefined);
    t.deepEqual((await store.find('Interaction', interaction))?.session, { accountId: '7', uid: sessionUid });
    t.is(await store.revokeSessionsOfUser('7'), 1);
    t.is(await store.find('Session', session), undefined);
    t.is(await store.revokeByUserAndClient('7', 'client-1'), 2, 'the access token and the new refresh token');
    t.is(await store.find('AccessToken', at), undefined);
  });

  it('a stored (hashed) id presented as a token finds, consumes and destroys nothing', async (t, store) => {
    const grantId = unique('grant');
    const rt = ofGrant(grantId, 'rt');
    await store.upsert('RefreshToken', rt, { kind: 'RefreshToken', jti: rt, grantId }, 600);
    const sid = storedTokenId(rt);
    t.is(await store.find('RefreshToken', sid), undefined);
    t.is((await store.findWithVersions('RefreshToken', sid, [])).record, undefined);
    t.false(await store.consume('RefreshToken', sid));
    t.false(await store.consumeAndUpsert({ model: 'RefreshToken', id: sid }, []));
    t.deepEqual(
      await store.consumeAndUpsertOrRead({ model: 'RefreshToken', id: sid }, [], {
        model: 'RefreshRetry',
        id: sid,
      }),
      { settled: false, found: undefined },
    );
    const found = await store.find('RefreshToken', rt);
    t.is(found?.consumed, undefined, 'the real token is untouched');
    t.is(found?.jti, rt);
  });

  it('records of the old layout (keyed by the raw token) keep working once, and go for good', async (t, store) => {
    const grantId = unique('grant');
    const owner = { accountId: '8', clientId: 'client-2' };
    const old = h.raw;
    const [code, at, rt, next] = ['code', 'at', 'rt', 'rt'].map((label) => ofGrant(grantId, label)) as [
      string,
      string,
      string,
      string,
    ];
    await old.upsert('Grant', grantId, { kind: 'Grant', jti: grantId, ...owner }, 600);
    await old.upsert(
      'AuthorizationCode',
      code,
      { kind: 'AuthorizationCode', jti: code, grantId, ...owner },
      60,
    );
    await old.upsert('AccessToken', at, accessToken(at, grantId, owner), 600);
    await old.upsert('RefreshToken', rt, { kind: 'RefreshToken', jti: rt, grantId, ...owner }, 600);

    // Found as before.
    t.is((await store.find('AccessToken', at))?.jti, at);
    t.is((await store.findWithVersions('AccessToken', at, [])).record?.jti, at);
    t.is((await store.findWithVersions('RefreshToken', rt, [])).record?.jti, rt);
    // A code is used once.
    t.true(await store.consume('AuthorizationCode', code));
    t.false(await store.consume('AuthorizationCode', code));
    // A refresh token rotates once; the loser reads what the winner kept.
    const kept = { kind: 'RefreshRetry', sealed: 'y' };
    const rotate = (id: string) =>
      store.consumeAndUpsertOrRead(
        { model: 'RefreshToken', id: rt },
        [
          {
            model: 'RefreshToken',
            id,
            payload: { kind: 'RefreshToken', jti: id, grantId, ...owner },
            expiresInSeconds: 600,
          },
          { model: 'RefreshRetry', id: rt, payload: kept, expiresInSeconds: 10 },
        ],
        { model: 'RefreshRetry', id: rt },
      );
    const loser = ofGrant(grantId, 'rt');
    t.deepEqual(await rotate(next), { settled: true });
    t.deepEqual(await rotate(loser), { settled: false, found: kept });
    t.is(await store.find('RefreshToken', loser), undefined, 'the loser wrote nothing');
    t.false(await store.consumeAndUpsert({ model: 'RefreshToken', id: rt }, []), 'used for good');
    t.true(Number.isInteger((await store.find('RefreshToken', rt))?.consumed), 'kept for reuse detection');
    t.is((await store.find('RefreshToken', next))?.jti, next);

    // A session of the old layout: saved again it moves; signed out it is gone in both forms.
    const session = unique('sess');
    const uid = unique('uid');
    const sessionPayload = { kind: 'Session', jti: session, uid, accountId: '8' };
    await old.upsert('Session', session, sessionPayload, 600);
    t.deepEqual(await store.find('Session', session), sessionPayload);
    await store.upsert('Session', session, { ...sessionPayload, loginTs: 1 }, 600);
    t.is(await old.find('Session', session), undefined, 'no raw copy is left');
    t.is((await store.find('Session', session))?.loginTs, 1);
    await store.destroy('Session', session);
    t.is(await store.find('Session', session), undefined);
    const other = unique('sess');
    await old.upsert(
      'Session',
      other,
      { kind: 'Session', jti: other, uid: unique('uid'), accountId: '8' },
      600,
    );
    await store.destroy('Session', other);
    t.is(await store.find('Session', other), undefined, 'destroy reaches the raw record');
    t.is(await old.find('Session', other), undefined);
    const third = unique('sess');
    await old.upsert(
      'Session',
      third,
      { kind: 'Session', jti: third, uid: unique('uid'), accountId: '8' },
      600,
    );
    t.is(await store.revokeSessionsOfUser('8'), 1, 'sign-out everywhere reaches the raw record');
    t.is(await store.find('Session', third), undefined);

    // Revocation reaches both layouts of one grant.
    await store.revokeByUserAndClient('8', 'client-2');
    t.is(await store.find('AccessToken', at), undefined);
    t.is(await store.find('RefreshToken', next), undefined);
    t.is(await store.find('RefreshToken', rt), undefined);
  });
  /**
   * Storage of its own (the mark is one per store: moving it would end the other tests' fallback):
   * a key prefix of its own on Redis, a database of its own in SQL (made before the other tests
   * start, as the migration's below).
   */
  async function ownStorage(t: ExecutionContext) {
    if (h.redis) {
      const { client, prefix } = h.redis;
      const own = `${prefix}own-${randomUUID()}:`;
      const markKey = `${own}${HASHED_IDS_MARK}`;
      return {
        raw: createRawRedisTokenStore({ redis: client, prefix: own }),
        hashed: (lifetime?: number) =>
          createRedisTokenStore({ redis: client, prefix: own, longestTokenLifetime: lifetime }),
        mark: async () => {
          const value = await client.get(markKey);
          return value === null ? undefined : Number(value);
        },
        setMark: async (value: number) => {
          await client.set(markKey, String(value));
        },
      };
    }
    const database = await createTestDatabase({ backend: backend.name as 'postgres' | 'pglite' });
    t.teardown(() => database.drop());
    const knex = database.db.knex;
    const counters = () => knex(TOKEN_TABLES.counters).where({ key: HASHED_IDS_MARK });
    return {
      raw: createRawSqlTokenStore({ knex }),
      hashed: (lifetime?: number) => createSqlTokenStore({ knex, longestTokenLifetime: lifetime }),
      mark: async () => {
        const row = (await counters().first('value', 'expires_at')) as
          | { value: string | number; expires_at: Date | null }
          | undefined;
        if (row) t.is(row.expires_at, null, 'the mark never expires');
        return row === undefined ? undefined : Number(row.value);
      },
      setMark: async (value: number) => {
        await counters().update({ value });
      },
    };
  }

  const serialForSql = backend.name.startsWith('redis') ? test : test.serial;
  serialForSql(
    `${backend.name}: records of the old layout are looked for until a token lifetime after hashing began, then never`,
    async (t) => {
      const own = await ownStorage(t);
      const { raw } = own;
      const grantId = unique('grant');
      const owner = { accountId: '10', clientId: 'client-4' };
      const [code, at, rt, next] = ['code', 'at', 'rt', 'rt'].map((label) => ofGrant(grantId, label)) as [
        string,
        string,
        string,
        string,
      ];
      const session = unique('sess');
      await raw.upsert('Grant', grantId, { kind: 'Grant', jti: grantId, ...owner }, 600);
      await raw.upsert(
        'AuthorizationCode',
        code,
        { kind: 'AuthorizationCode', jti: code, grantId, ...owner },
        60,
      );
      await raw.upsert('AccessToken', at, accessToken(at, grantId, owner), 600);
      await raw.upsert('RefreshToken', rt, { kind: 'RefreshToken', jti: rt, grantId, ...owner }, 600);
      await raw.upsert('Session', session, { kind: 'Session', jti: session, accountId: '10' }, 600);
      t.is(await own.mark(), undefined, 'no mark before the first start with hashing');

      // The first start: the mark is written at first use (once, however many calls race for it),
      // and records of the old layout are found as before.
      const before = Date.now();
      const first = counted(raw);
      const store = withHashedIds(first.store, { longestTokenLifetime: 3600 });
      const founds = await Promise.all([
        store.find('AccessToken', at),
        store.find('RefreshToken', rt),
        store.findWithVersions('AccessToken', at, []),
      ]);
      t.is(founds[0]?.jti, at);
      t.is(founds[1]?.jti, rt);
      t.is(founds[2].record?.jti, at);
      t.is(first.calls.get('hashingBegan'), 1, 'the mark is read once');
      const mark = (await own.mark()) ?? Number.NaN;
      t.true(mark >= before && mark <= Date.now(), 'the mark is the first start');
      t.is(first.calls.get('find'), 4, 'two reads each for records of the old layout');

      // A restart (and a second process) neither moves the mark nor ends the fallback.
      await sleep(5);
      const restarted = withHashedIds(raw, { longestTokenLifetime: 3600 });
      t.is((await restarted.find('AccessToken', at))?.jti, at);
      t.is(await own.mark(), mark, 'not moved by a restart');
      t.is(await raw.hashingBegan(Date.now() + 60_000), mark, 'the first value stays');

      // Hashing began longer ago than the longest lifetime and a day: nothing of the old layout is
      // looked for, read or deleted any more; a store started before keeps its view.
      await own.setMark(Date.now() - 3600 * 1000 - DAY_MS - 60_000);
      const later = counted(raw);
      const ended = withHashedIds(later.store, { longestTokenLifetime: 3600 });
      t.is(await ended.find('AccessToken', at), undefined);
      t.is(await ended.find('Session', session), undefined);
      t.is((await ended.findWithVersions('AccessToken', at, [])).record, undefined);
      t.false(await ended.consume('AuthorizationCode', code));
      t.false(await ended.consumeAndUpsert({ model: 'RefreshToken', id: rt }, []));
      const settlement = await ended.consumeAndUpsertOrRead(
        { model: 'RefreshToken', id: rt },
        [
          {
            model: 'RefreshToken',
            id: next,
            payload: { kind: 'RefreshToken', jti: next, grantId, ...owner },
            expiresInSeconds: 600,
          },
        ],
        { model: 'RefreshRetry', id: rt },
      );
      t.deepEqual(settlement, { settled: false, found: undefined });
      await ended.destroy('Session', session);
      await ended.upsert('Session', unique('sess'), { kind: 'Session', accountId: '10' }, 600);
      t.deepEqual(
        Object.fromEntries(later.calls),
        {
          hashingBegan: 1,
          find: 2,
          findWithVersions: 1,
          consume: 1,
          consumeAndUpsert: 1,
          consumeAndUpsertOrRead: 1,
          destroy: 1,
          upsert: 1,
        },
        'one call each: no second read, no delete under the raw id',
      );
      t.is((await raw.find('Session', session))?.jti, session, 'left to expire by itself');
      t.false(Number.isInteger((await raw.find('RefreshToken', rt))?.consumed), 'untouched');
      t.is((await store.find('AccessToken', at))?.jti, at, 'the store started before still finds it');

      // The factories take the lifetime from their creator (the config's longest), a year without.
      await own.setMark(Date.now() - 2 * 3600 * 1000 - DAY_MS);
      t.is(await own.hashed(3600).find('AccessToken', at), undefined);
      t.is((await own.hashed(3 * 3600).find('AccessToken', at))?.jti, at);
      t.is((await own.hashed().find('AccessToken', at))?.jti, at);
    },
  );

  // On a database of its own (the migration moves every row of the old layout, the other tests'
  // included), made before the other tests start (serial tests run first): making a database
  // stalls Postgres for a moment, which the timed window tests would feel.
  const serialSql = backend.name.startsWith('redis') ? () => {} : test.serial;
  serialSql(
    `${backend.name}: migration 0022 moves rows of the old layout to hashed ids, keeping their state`,
    async (t) => {
      const database = await createTestDatabase({ backend: backend.name as 'postgres' | 'pglite' });
      t.teardown(() => database.drop());
      const knex = database.db.knex;
      const old = createRawSqlTokenStore({ knex });
      const store = createSqlTokenStore({ knex });
      const grantId = unique('grant');
      const owner = { accountId: '9', clientId: 'client-3' };
      const [at, rt, code, both] = ['at', 'rt', 'code', 'rt'].map((label) => ofGrant(grantId, label)) as [
        string,
        string,
        string,
        string,
      ];
      const session = unique('sess');
      const sessionUid = unique('uid');
      const interaction = unique('interaction');
      const atPayload = accessToken(at, grantId, owner);
      await old.upsert('Grant', grantId, { kind: 'Grant', jti: grantId, ...owner }, 600);
      await old.upsert('AccessToken', at, atPayload, 600);
      await old.upsert('RefreshToken', rt, { kind: 'RefreshToken', jti: rt, grantId, ...owner }, 600);
      const codePayload = { kind: 'AuthorizationCode', jti: code, grantId, ...owner };
      await old.upsert('AuthorizationCode', code, codePayload, 60);
      await old.consume('AuthorizationCode', code);
      const sessionPayload = { kind: 'Session', jti: session, uid: sessionUid, accountId: '9' };
      await old.upsert('Session', session, sessionPayload, 600);
      const cookieCopy = { accountId: '9', uid: sessionUid, cookie: session };
      await old.upsert('Interaction', interaction, { kind: 'Interaction', session: cookieCopy }, 600);
      // A refresh token in both forms (an older process wrote it raw again): the hashed one wins.
      await store.upsert(
        'RefreshToken',
        both,
        { kind: 'RefreshToken', jti: both, grantId, rotations: 1 },
        600,
      );
      await old.upsert('RefreshToken', both, { kind: 'RefreshToken', jti: both, grantId, rotations: 0 }, 600);

      const migration = migrations.find(([name]) => name === '0022_hashed_token_ids')![1];
      await migration.up(knex);
      await migration.up(knex); // a second run moves nothing more

      const secrets = [at, rt, code, session, both].flatMap((id) => [id, id.split('.')[0]!]);
      t.deepEqual(leaks(await dumpTokenStore({ knex }), secrets), []);
      const moved: Array<[string, string]> = [
        ['AccessToken', at],
        ['RefreshToken', rt],
        ['AuthorizationCode', code],
        ['Session', session],
        ['RefreshToken', both],
      ];
      for (const [model, id] of moved) t.is(await old.find(model, id), undefined, `${model} moved`);
      t.deepEqual(await store.find('AccessToken', at), atPayload);
      t.is((await store.find('RefreshToken', rt))?.jti, rt);
      t.true(Number.isInteger((await store.find('AuthorizationCode', code))?.consumed), 'still consumed');
      t.false(await store.consume('AuthorizationCode', code));
      t.is((await store.find('RefreshToken', both))?.rotations, 1);
      t.is((await store.findByUid('Session', sessionUid))?.accountId, '9', 'indexes stay');
      t.deepEqual(await store.find('Session', session), sessionPayload);
      t.deepEqual((await store.find('Interaction', interaction))?.session, {
        accountId: '9',
        uid: sessionUid,
      });
      t.is(await store.revokeByUserAndClient('9', 'client-3'), 2, 'the owner index still reaches them');
      t.is(await store.revokeSessionsOfUser('9'), 1);
    },
  );
}

test('PGlite is always among the backends', (t) => {
  t.true(backends.some((backend) => backend.name === 'pglite'));
});
