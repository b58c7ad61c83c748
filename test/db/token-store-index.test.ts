import { randomUUID } from 'node:crypto';
import {
  clientIndexKey,
  grantIndexKey,
  grantUsedKey,
  recordKey,
  storedTokenId,
  sessionIndexKey,
  TOKEN_TABLES,
  taggedTokenId,
  userClientIndexKey,
  userIndexKey,
} from '@sched/db/token-store/keys';
import type { RecordWrite, TokenPayload, TokenStore } from '@sched/db/token-store/types';
import test, { type ExecutionContext } from 'ava';
import { type TokenStoreHarness, tokenStoreBackends } from '../support/token-stores.ts';

// The owner index of the token store (docs/token-store.md "Owner index"): one contract, run
// against Redis (REDIS_URL), Postgres (DATABASE_URL) and PGlite (always).

type Harness = TokenStoreHarness;
const backends = tokenStoreBackends();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const unique = (label: string) => `${label}-${randomUUID()}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** Account ids are user ids as strings; each test takes its own. */
let nextAccount = 1000;
const account = () => String(nextAccount++ + Math.floor(Math.random() * 1e6) * 1000);

const TTL = { AccessToken: 1800, RefreshToken: 30 * 86400, AuthorizationCode: 60, Grant: 365 * 86400 };
type TokenModel = 'AccessToken' | 'RefreshToken' | 'AuthorizationCode';

function grantWrite(
  accountId: string,
  clientId: string,
  scope = 'BOOKING_READ',
): RecordWrite & { grantId: string } {
  const grantId = unique('grant');
  const iat = nowSeconds();
  return {
    grantId,
    model: 'Grant',
    id: grantId,
    payload: {
      kind: 'Grant',
      jti: grantId,
      accountId,
      clientId,
      openid: { scope },
      iat,
      exp: iat + TTL.Grant,
    },
    expiresInSeconds: TTL.Grant,
  };
}

function tokenWrite(
  model: TokenModel,
  accountId: string,
  clientId: string,
  grantId: string,
  expiresInSeconds: number = TTL[model],
): RecordWrite {
  // As the auth service makes them: the grant's tag in the value, so the token is in its slot.
  const id = taggedTokenId(unique(model), grantId);
  const iat = nowSeconds();
  const payload: TokenPayload = {
    kind: model,
    jti: id,
    accountId,
    clientId,
    grantId,
    iat,
    exp: iat + expiresInSeconds,
  };
  return { model, id, payload, expiresInSeconds };
}

/** An authorization as oidc-provider leaves it after the code exchange: grant, consumed code, AT, RT. */
async function authorize(store: TokenStore, accountId: string, clientId: string, scope?: string) {
  const grant = grantWrite(accountId, clientId, scope);
  const code = tokenWrite('AuthorizationCode', accountId, clientId, grant.grantId);
  await store.consumeAndUpsert(undefined, [grant, code]);
  const access = tokenWrite('AccessToken', accountId, clientId, grant.grantId);
  const refresh = tokenWrite('RefreshToken', accountId, clientId, grant.grantId);
  t0(await store.consumeAndUpsert({ model: code.model, id: code.id }, [access, refresh]));
  return { grant, code, access, refresh };
}

function t0(ok: boolean): void {
  if (!ok) throw new Error('the set-up write was refused');
}

/** Usable tokens among `writes`, as the store sees them now: present, not consumed, not a Grant. */
async function usable(store: TokenStore, writes: readonly RecordWrite[]): Promise<number> {
  let count = 0;
  for (const write of writes) {
    if (write.model === 'Grant') continue;
    const found = await store.find(write.model, write.id);
    if (found && found.consumed === undefined) count++;
  }
  return count;
}

async function present(store: TokenStore, writes: readonly RecordWrite[]): Promise<number> {
  let count = 0;
  for (const write of writes) if (await store.find(write.model, write.id)) count++;
  return count;
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

  it('revokeByUserAndClient deletes every record of the user for the client and counts usable tokens', async (t, store) => {
    const user = account();
    const other = account();
    const first = await authorize(store, user, 'client-a');
    const second = await authorize(store, user, 'client-a');
    const otherClient = await authorize(store, user, 'client-b');
    const otherUser = await authorize(store, other, 'client-a');
    const mine = [...Object.values(first), ...Object.values(second)];

    // Per authorization: the access and refresh token are usable; the code is consumed; the
    // Grant is deleted but not counted.
    t.is(await store.revokeByUserAndClient(user, 'client-a'), 4);
    t.is(await present(store, mine), 0, 'grants, codes and tokens are gone');
    t.is(await present(store, Object.values(otherClient)), 4, "the user's other client keeps its records");
    t.is(await present(store, Object.values(otherUser)), 4, "another user's records stay");
    t.is(await store.revokeByUserAndClient(user, 'client-a'), 0, 'a second revocation finds nothing');
  });

  it('a refresh after the revocation is refused: the refresh token is gone', async (t, store) => {
    const user = account();
    const { access, refresh, grant } = await authorize(store, user, 'client-a');
    t.is(await store.revokeByUserAndClient(user, 'client-a'), 2);
    const next = [
      tokenWrite('AccessToken', user, 'client-a', grant.grantId),
      tokenWrite('RefreshToken', user, 'client-a', grant.grantId),
    ];
    t.false(await store.consumeAndUpsert({ model: 'RefreshToken', id: refresh.id }, next));
    t.is(await store.find('AccessToken', access.id), undefined);
    t.is(await present(store, next), 0);
  });

  it('revokeByClient ends the tokens of every user; revokeByUser those of every client', async (t, store) => {
    const client = unique('client');
    const [u1, u2, u3] = [account(), account(), account()];
    const a = await authorize(store, u1, client);
    const b = await authorize(store, u2, client);
    const c = await authorize(store, u3, 'client-c');
    t.is(await store.revokeByClient(client), 4);
    t.is(await present(store, [...Object.values(a), ...Object.values(b)]), 0);
    t.is(await present(store, Object.values(c)), 4, "another client's tokens stay");

    const user = account();
    const x = await authorize(store, user, unique('client'));
    const y = await authorize(store, user, unique('client'));
    const z = await authorize(store, account(), 'client-c');
    t.is(await store.revokeByUser(user), 4);
    t.is(await present(store, [...Object.values(x), ...Object.values(y)]), 0);
    t.is(await present(store, Object.values(z)), 4, "another user's tokens stay");
  });

  it('counts only usable tokens: consumed, destroyed and expired ones are not counted', async (t, store) => {
    const user = account();
    const { grant, access } = await authorize(store, user, 'client-a');
    const extra = tokenWrite('AccessToken', user, 'client-a', grant.grantId);
    const short = tokenWrite('AccessToken', user, 'client-a', grant.grantId, 1);
    await store.consumeAndUpsert(undefined, [extra, short]);
    await store.destroy('AccessToken', access.id);
    await sleep(1100);
    // Left usable: the refresh token and `extra` (the code is consumed, `short` expired).
    t.is(await store.revokeByUserAndClient(user, 'client-a'), 2);
  });

  it('50 concurrent rotations: afterwards the index finds exactly the live tokens', async (t, store) => {
    const user = account();
    const client = unique('client');
    const written: RecordWrite[] = [];
    // 25 authorizations, each refreshed once concurrently with the others, and one refresh token
    // used by 25 concurrent requests (exactly one wins).
    const flows = await Promise.all(Array.from({ length: 26 }, () => authorize(store, user, client)));
    for (const flow of flows) written.push(...Object.values(flow));
    const shared = flows[25]!;
    const rotations = [
      ...flows.slice(0, 25).map((flow) => ({ flow, consume: flow.refresh })),
      ...Array.from({ length: 25 }, () => ({ flow: shared, consume: shared.refresh })),
    ];
    const results = await Promise.all(
      rotations.map(async ({ flow, consume }) => {
        const writes = [
          tokenWrite('AccessToken', user, client, flow.grant.grantId),
          tokenWrite('RefreshToken', user, client, flow.grant.grantId),
        ];
        const ok = await store.consumeAndUpsert({ model: consume.model, id: consume.id }, writes);
        if (ok) written.push(...writes);
        return ok;
      }),
    );
    t.is(results.filter(Boolean).length, 26, 'each of the 25 rotates, and one of the 25 racing');
    const live = await usable(store, written);
    // 26 first access tokens, 26 new access tokens, 26 new refresh tokens.
    t.is(live, 78);
    t.is(await store.revokeByUserAndClient(user, client), live);
    t.is(await present(store, written), 0);
  });

  it('a revocation racing 50 rotations leaves no token of the user for the client', async (t, store) => {
    const user = account();
    const client = unique('client');
    const flows = await Promise.all(Array.from({ length: 50 }, () => authorize(store, user, client)));
    const written: RecordWrite[] = flows.flatMap((flow) => Object.values(flow));
    const rotations = flows.map(async (flow, i) => {
      if (i % 10 === 0) await sleep(1);
      const writes = [
        tokenWrite('AccessToken', user, client, flow.grant.grantId),
        tokenWrite('RefreshToken', user, client, flow.grant.grantId),
      ];
      written.push(...writes);
      return store.consumeAndUpsert({ model: 'RefreshToken', id: flow.refresh.id }, writes);
    });
    const [revoked] = await Promise.all([store.revokeByUserAndClient(user, client), ...rotations]);
    t.true(revoked > 0);
    t.is(
      await present(store, written),
      0,
      'every rotation either settled first (and was revoked) or found its token gone',
    );
  });

  it('index entries vanish with their tokens', async (t, store) => {
    const user = account();
    const client = unique('client');
    const grant = grantWrite(user, client);
    // 3 s, then polled: a loaded machine may take over a second between two of these calls.
    grant.expiresInSeconds = 3;
    await store.consumeAndUpsert(undefined, [
      grant,
      tokenWrite('AccessToken', user, client, grant.grantId, 3),
      tokenWrite('RefreshToken', user, client, grant.grantId, 3),
    ]);
    await store.upsert('Session', unique('session'), { kind: 'Session', accountId: user }, 3);
    t.is((await store.listGrantsOfUser(user)).length, 1);
    await sleep(3100);
    for (let wait = 0; wait < 20 && (await store.listGrantsOfUser(user)).length > 0; wait++) await sleep(250);
    t.deepEqual(await store.listGrantsOfUser(user), []);
    if (h.redis) {
      const { client: redis, prefix } = h.redis;
      const keys = [
        userClientIndexKey(prefix, user, client),
        userIndexKey(prefix, user),
        clientIndexKey(prefix, client),
        sessionIndexKey(prefix, user),
        grantIndexKey(prefix, grant.grantId),
        grantUsedKey(prefix, grant.grantId),
      ];
      // The owner index outlives its grant by a minute's slack (docs/token-store.md): its members
      // are gone from reads, the keys expire a minute later.
      let left = 0;
      for (const key of [grantIndexKey(prefix, grant.grantId), grantUsedKey(prefix, grant.grantId)])
        left += await redis.exists(key);
      t.is(left, 0, "the grant's keys expire with its last member");
      for (const key of keys) t.true((await redis.pttl(key)) <= 61_000, `${key} expires within a minute`);
    }
    if (h.knex) {
      await store.sweepExpired!();
      const rows = await h.knex(TOKEN_TABLES.records).where({ account_id: user }).count({ n: '*' });
      t.is(Number(rows[0]!['n']), 0, 'the index is the rows themselves, swept with them');
    }
    t.is(await store.revokeByUserAndClient(user, client), 0);
    t.is(await store.revokeSessionsOfUser(user), 0);
  });

  it('a long-lived authorization keeps only live members: rotation prunes the expired ones', async (t, store) => {
    const user = account();
    const client = unique('client');
    const grant = grantWrite(user, client);
    await store.upsert('Grant', grant.id, grant.payload, grant.expiresInSeconds);
    for (let i = 0; i < 3; i++) {
      const short = tokenWrite('AccessToken', user, client, grant.grantId, 1);
      await store.upsert(short.model, short.id, short.payload, 1);
    }
    await sleep(1100);
    const last = tokenWrite('AccessToken', user, client, grant.grantId);
    await store.upsert(last.model, last.id, last.payload, last.expiresInSeconds);
    if (h.redis) {
      const { client: redis, prefix } = h.redis;
      t.deepEqual(await redis.zrange(grantIndexKey(prefix, grant.grantId), 0, -1), [
        `AccessToken:${storedTokenId(last.id)}`,
      ]);
      t.deepEqual(await redis.zrange(userClientIndexKey(prefix, user, client), 0, -1), [`Grant:${grant.id}`]);
    }
    t.is(await store.revokeByUserAndClient(user, client), 1);
  });

  it('sessions are indexed by account: revokeSessionsOfUser ends them and nothing else', async (t, store) => {
    const user = account();
    const sessions = [unique('s'), unique('s')];
    for (const id of sessions)
      await store.upsert('Session', id, { kind: 'Session', accountId: user, uid: unique('u') }, 600);
    const other = unique('s');
    await store.upsert('Session', other, { kind: 'Session', accountId: account() }, 600);
    await store.upsert('Session', unique('s'), { kind: 'Session' }, 600); // signed out: no account
    const flow = await authorize(store, user, 'client-a');
    t.is(await store.revokeByUser(user), 2, 'token revocation leaves sessions alone');
    t.truthy(await store.find('Session', sessions[0]!));
    t.is(await store.revokeSessionsOfUser(user), 2);
    for (const id of sessions) t.is(await store.find('Session', id), undefined);
    t.truthy(await store.find('Session', other));
    t.is(await present(store, Object.values(flow)), 0);
  });

  it('listGrantsOfUser: per client, the scopes of its live grants, the first grant and the last issue', async (t, store) => {
    const user = account();
    const before = nowSeconds();
    await authorize(store, user, 'client-b', 'BOOKING_READ PROFILE_READ');
    await authorize(store, user, 'client-b', 'SCHEDULE_READ BOOKING_READ');
    const gone = await authorize(store, user, 'client-c');
    await authorize(store, account(), 'client-d');
    await store.revokeByGrantId(gone.grant.grantId);
    await store.destroy('Grant', gone.grant.id);
    const after = nowSeconds();
    const list = await store.listGrantsOfUser(user);
    t.deepEqual(
      list.map(({ clientId, scopes }) => ({ clientId, scopes })),
      [{ clientId: 'client-b', scopes: ['BOOKING_READ', 'PROFILE_READ', 'SCHEDULE_READ'] }],
      'a client whose grants were all revoked is not listed',
    );
    const entry = list[0]!;
    t.true(entry.firstGrantedAt >= before - 1 && entry.firstGrantedAt <= after + 1);
    t.true(entry.lastIssuedAt >= entry.firstGrantedAt && entry.lastIssuedAt <= after + 1);
    await store.revokeByUserAndClient(user, 'client-b');
    t.deepEqual(await store.listGrantsOfUser(user), []);
  });

  it('ids that cannot be indexed find nothing and write no index', async (t, store) => {
    t.is(await store.revokeByUserAndClient('a:b', 'client-a'), 0);
    t.is(await store.revokeByUserAndClient('1', ''), 0);
    t.is(await store.revokeByClient(''), 0);
    t.is(await store.revokeByUser(''), 0);
    t.deepEqual(await store.listGrantsOfUser('x'.repeat(300)), []);
    const id = unique('at');
    await store.upsert('AccessToken', id, { kind: 'AccessToken', accountId: 'a:b', clientId: 'c' }, 60);
    t.truthy(await store.find('AccessToken', id), 'the record itself is stored as before');
    await t.throwsAsync(() => store.find('idx', 'x'), { instanceOf: TypeError }, "'idx' is a key space");
  });

  if (backend.name.startsWith('redis')) {
    it('Redis layout: the owner index holds grants, each grant index its tokens', async (t) => {
      const { client: redis, prefix } = h.redis!;
      const user = account();
      const client = unique('client');
      const flow = await authorize(h.store, user, client);
      t.deepEqual(await redis.zrange(userClientIndexKey(prefix, user, client), 0, -1), [
        `Grant:${flow.grant.id}`,
      ]);
      t.deepEqual(
        (await redis.zrange(grantIndexKey(prefix, flow.grant.grantId), 0, -1)).sort(),
        [flow.code, flow.access, flow.refresh].map((w) => `${w.model}:${storedTokenId(w.id)}`).sort(),
      );
      t.deepEqual(await redis.zrange(userIndexKey(prefix, user), 0, -1), [client]);
      t.deepEqual(await redis.zrange(clientIndexKey(prefix, client), 0, -1), [user]);
      t.regex((await redis.get(grantUsedKey(prefix, flow.grant.grantId)))!, /^\d{13}$/);
      // The directories live as long as the longest member (the grant's year).
      t.true((await redis.pttl(userIndexKey(prefix, user))) > (TTL.Grant - 60) * 1000);
      t.is(await redis.exists(recordKey(prefix, 'Grant', flow.grant.id)), 1);
      await h.store.revokeByUserAndClient(user, client);
      for (const key of [
        userClientIndexKey(prefix, user, client),
        userIndexKey(prefix, user),
        grantIndexKey(prefix, flow.grant.grantId),
        grantUsedKey(prefix, flow.grant.grantId),
        recordKey(prefix, 'Grant', flow.grant.id),
      ])
        t.is(await redis.exists(key), 0, `revocation removes ${key}`);
    });

    it("a token never outlives its Grant record: its TTL is cut to the grant's", async (t) => {
      const { client: redis, prefix } = h.redis!;
      const user = account();
      const client = unique('client');
      const grant = grantWrite(user, client);
      grant.expiresInSeconds = 5;
      await h.store.upsert('Grant', grant.id, grant.payload, grant.expiresInSeconds);
      const refresh = tokenWrite('RefreshToken', user, client, grant.grantId, 30 * 86400);
      await h.store.upsert(refresh.model, refresh.id, refresh.payload, refresh.expiresInSeconds);
      const left = await redis.pttl(recordKey(prefix, refresh.model, storedTokenId(refresh.id)));
      t.true(left > 0 && left <= 5000, `the refresh token expires with its grant (${left} ms)`);
      // So the grant's owner-index entry, which lives as long as the grant, still reaches it.
      const [, score] = await redis.zrange(userClientIndexKey(prefix, user, client), 0, -1, 'WITHSCORES');
      t.true(Number(score) >= Date.now() + left);
      t.is(await h.store.revokeByUserAndClient(user, client), 1);
    });
  } else {
    it('SQL layout: account_id and client_id columns copied from the payload', async (t) => {
      const user = account();
      const flow = await authorize(h.store, user, 'client-z');
      await h.store.upsert('Session', unique('s'), { kind: 'Session', accountId: user }, 60);
      const rows = (await h.knex!(TOKEN_TABLES.records)
        .where({ account_id: user })
        .select('model', 'client_id')) as Array<{ model: string; client_id: string | null }>;
      t.deepEqual(rows.map((r) => `${r.model}:${r.client_id}`).sort(), [
        'AccessToken:client-z',
        'AuthorizationCode:client-z',
        'Grant:client-z',
        'RefreshToken:client-z',
        'Session:null',
      ]);
      t.truthy(flow);
    });
  }
}

test('PGlite is always among the backends', (t) => {
  t.true(backends.some((backend) => backend.name === 'pglite'));
});
