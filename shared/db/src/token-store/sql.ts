import type { Knex } from 'knex';
import { type HashedIdsOptions, withHashedIds } from './hashed-ids.ts';
import { HASHED_IDS_MARK, rateCounter, TOKEN_TABLES, versionCounter } from './keys.ts';
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

const RECORDS = TOKEN_TABLES.records;
const COUNTERS = TOKEN_TABLES.counters;

// Every time comparison uses the database clock (now()), so all processes agree.
const LIVE = '(expires_at is null or expires_at > now())';
const RECORD_COLUMNS = 'payload, floor(extract(epoch from consumed_at))::float8 as consumed';
const SWEEP_BATCH = 1000;

interface RecordRow {
  payload: TokenPayload | string;
  consumed: number | string | null;
}

interface RawResult<R> {
  rows: R[];
  rowCount: number | null;
}

function decodeRow<P extends TokenPayload>(row: RecordRow | undefined): P | undefined {
  if (!row || row.payload === null || row.payload === undefined) return undefined;
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as P;
  if (row.consumed !== null && row.consumed !== undefined) payload.consumed = Number(row.consumed);
  return payload;
}

function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export interface SqlTokenStoreOptions extends HashedIdsOptions {
  /** A knex on Postgres or PGlite with migration 0002_token_store applied. */
  knex: Knex;
}

/**
 * The token store in the database (the embedded default, durable across restarts), bearer secrets
 * hashed (hashed-ids.ts). Expired rows are never returned; `sweepExpired()` deletes them (called
 * periodically by the service).
 */
export function createSqlTokenStore(options: SqlTokenStoreOptions): TokenStore {
  return withHashedIds(createRawSqlTokenStore(options), options);
}

/**
 * The store keeping every id as given: the layout before bearer secrets were hashed. Only for
 * tests of the upgrade and of the raw layout; everything else uses `createSqlTokenStore`.
 */
export function createRawSqlTokenStore({ knex }: SqlTokenStoreOptions): TokenStore {
  async function raw<R>(
    sql: string,
    bindings: readonly Knex.RawBinding[] = [],
    db: Knex | Knex.Transaction = knex,
  ): Promise<RawResult<R>> {
    return (await db.raw(sql, bindings as Knex.RawBinding[])) as RawResult<R>;
  }

  async function upsertIn(db: Knex | Knex.Transaction, write: RecordWrite): Promise<void> {
    const { model, id, payload } = write;
    assertModelName(model);
    const expiresIn = checkExpiresIn(write.expiresInSeconds);
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    const owner = recordOwner(payload);
    await raw(
      `insert into ${RECORDS} (model, id, payload, grant_id, uid, user_code, account_id, client_id,
                               consumed_at, expires_at)
       values (?, ?, ?::jsonb, ?, ?, ?, ?, ?, to_timestamp(?::float8),
               now() + make_interval(secs => ?::float8))
       on conflict (model, id) do update set
         payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
         user_code = excluded.user_code, account_id = excluded.account_id, client_id = excluded.client_id,
         consumed_at = excluded.consumed_at, expires_at = excluded.expires_at`,
      [
        model,
        id,
        JSON.stringify(payload),
        text(payload.grantId),
        text(payload.uid),
        text(payload.userCode),
        owner?.accountId ?? null,
        owner?.kind === 'client' ? owner.clientId : null,
        typeof payload.consumed === 'number' ? payload.consumed : null,
        expiresIn ?? null,
      ],
      db,
    );
  }

  async function consumeIn(db: Knex | Knex.Transaction, { model, id }: RecordRef): Promise<boolean> {
    assertModelName(model);
    // Concurrent updates of one row serialize on its lock; the losers re-check the condition.
    const { rows } = await raw(
      `update ${RECORDS} set consumed_at = now()
       where model = ? and id = ? and consumed_at is null and ${LIVE} returning 1 as consumed`,
      [model, id],
      db,
    );
    return rows.length === 1;
  }

  async function findBy<P extends TokenPayload>(
    model: string,
    column: 'id' | 'uid' | 'user_code',
    value: string,
  ) {
    assertModelName(model);
    const { rows } = await raw<RecordRow>(
      `select ${RECORD_COLUMNS} from ${RECORDS} where model = ? and ${column} = ? and ${LIVE} limit 1`,
      [model, value],
    );
    return decodeRow<P>(rows[0]);
  }

  /**
   * Deletes the records `where` selects, pass after pass until a pass finds none: a rotation whose
   * transaction held a row this pass waited for commits its new tokens first, and the next pass
   * deletes them; a rotation after it finds its code or refresh token gone and writes nothing.
   * Returns the usable tokens deleted (not Grant, not consumed, not expired).
   */
  async function revokeWhere(where: string, bindings: readonly Knex.RawBinding[]): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await raw<{ usable: boolean }>(
        `delete from ${RECORDS} where ${where}
         returning (model <> 'Grant' and consumed_at is null and ${LIVE}) as usable`,
        bindings,
      );
      if (rows.length === 0) return total;
      for (const row of rows) if (row.usable) total++;
    }
  }

  async function sweep(table: string, key: string): Promise<number> {
    let removed = 0;
    for (;;) {
      const result = await raw(
        `delete from ${table} where (${key}) in (select ${key} from ${table} where expires_at <= now() limit ${SWEEP_BATCH})`,
      );
      const count = result.rowCount ?? 0;
      removed += count;
      if (count < SWEEP_BATCH) return removed;
    }
  }

  return {
    kind: 'sql',

    upsert(model, id, payload, expiresInSeconds) {
      return upsertIn(knex, { model, id, payload, expiresInSeconds });
    },

    find(model, id) {
      return findBy(model, 'id', id);
    },

    findByUid(model, uid) {
      return findBy(model, 'uid', uid);
    },

    findByUserCode(model, userCode) {
      return findBy(model, 'user_code', userCode);
    },

    consume(model, id) {
      return consumeIn(knex, { model, id });
    },

    async consumeAndUpsert(consume, writes) {
      // One statement needs no transaction (what `upsert` runs).
      if (!consume && writes.length <= 1) {
        if (writes[0]) await upsertIn(knex, writes[0]);
        return true;
      }
      return knex.transaction(async (trx) => {
        if (consume && !(await consumeIn(trx, consume))) return false;
        for (const write of writes) await upsertIn(trx, write);
        return true;
      });
    },

    consumeAndUpsertOrRead(consume, writes, otherwise): Promise<Settlement> {
      assertModelName(otherwise.model);
      return knex.transaction(async (trx): Promise<Settlement> => {
        if (await consumeIn(trx, consume)) {
          for (const write of writes) await upsertIn(trx, write);
          return { settled: true };
        }
        // A new statement: it sees what the winner of the row lock committed with its consumption.
        const { rows } = await raw<RecordRow>(
          `select ${RECORD_COLUMNS} from ${RECORDS} where model = ? and id = ? and ${LIVE} limit 1`,
          [otherwise.model, otherwise.id],
          trx,
        );
        return { settled: false, found: decodeRow(rows[0]) };
      });
    },

    async destroy(model, id) {
      assertModelName(model);
      await raw(`delete from ${RECORDS} where model = ? and id = ?`, [model, id]);
    },

    async revokeByGrantId(grantId) {
      const result = await raw(`delete from ${RECORDS} where grant_id = ?`, [grantId]);
      return result.rowCount ?? 0;
    },

    revokeByUserAndClient(accountId, clientId) {
      if (!isIndexedAccountId(accountId) || !isOwnerId(clientId)) return Promise.resolve(0);
      return revokeWhere('account_id = ? and client_id = ?', [accountId, clientId]);
    },

    revokeByClient(clientId) {
      if (!isOwnerId(clientId)) return Promise.resolve(0);
      return revokeWhere('client_id = ?', [clientId]);
    },

    revokeByUser(accountId) {
      if (!isIndexedAccountId(accountId)) return Promise.resolve(0);
      return revokeWhere('account_id = ? and client_id is not null', [accountId]);
    },

    async revokeSessionsOfUser(accountId) {
      if (!isIndexedAccountId(accountId)) return 0;
      const result = await raw(
        `delete from ${RECORDS} where account_id = ? and client_id is null and ${LIVE}`,
        [accountId],
      );
      // Expired ones go too (the sweep would), without being counted.
      await raw(`delete from ${RECORDS} where account_id = ? and client_id is null`, [accountId]);
      return result.rowCount ?? 0;
    },

    async listGrantsOfUser(accountId): Promise<UserClientGrants[]> {
      if (!isIndexedAccountId(accountId)) return [];
      const iat = `case when jsonb_typeof(payload->'iat') = 'number' then (payload->>'iat')::float8 end`;
      const { rows } = await raw<{
        client_id: string;
        first_grant: unknown;
        first_any: unknown;
        last_issued: unknown;
        scopes: string[] | string | null;
      }>(
        `select client_id,
           min(${iat}) filter (where model = 'Grant') as first_grant,
           min(${iat}) as first_any,
           max(${iat}) as last_issued,
           coalesce(jsonb_agg(payload->'openid'->'scope') filter (where model = 'Grant'), '[]'::jsonb) as scopes
         from ${RECORDS}
         where account_id = ? and client_id is not null and ${LIVE}
         group by client_id order by client_id`,
        [accountId],
      );
      return rows.map((row) => {
        const list = (
          typeof row.scopes === 'string' ? JSON.parse(row.scopes) : (row.scopes ?? [])
        ) as unknown[];
        const scopes = new Set<string>();
        for (const value of list)
          if (typeof value === 'string')
            for (const scope of value.split(' ')) if (scope !== '') scopes.add(scope);
        const first = row.first_grant ?? row.first_any;
        const firstGrantedAt = first === null || first === undefined ? 0 : Math.floor(toNumber(first));
        const last =
          row.last_issued === null || row.last_issued === undefined
            ? firstGrantedAt
            : Math.floor(toNumber(row.last_issued));
        return { clientId: row.client_id, scopes: [...scopes].sort(), firstGrantedAt, lastIssuedAt: last };
      });
    },

    async hit(key, windowSeconds): Promise<RateHit> {
      const window = checkWindow(windowSeconds);
      const { rows } = await raw<{ count: unknown; reset_in: unknown }>(
        `insert into ${COUNTERS} as c (key, value, expires_at)
         values (?, 1, now() + make_interval(secs => ?::float8))
         on conflict (key) do update set
           value = case when c.expires_at <= now() then 1 else c.value + 1 end,
           expires_at = case when c.expires_at <= now() then excluded.expires_at else c.expires_at end
         returning value::float8 as count, ceil(extract(epoch from expires_at - now()))::float8 as reset_in`,
        [rateCounter(key), window],
      );
      const row = rows[0]!;
      return { count: toNumber(row.count), resetInSeconds: Math.max(1, toNumber(row.reset_in)) };
    },

    async bumpVersion(key) {
      const { rows } = await raw<{ value: unknown }>(
        `insert into ${COUNTERS} as c (key, value) values (?, 1)
         on conflict (key) do update set value = c.value + 1
         returning value::float8 as value`,
        [versionCounter(key)],
      );
      return toNumber(rows[0]!.value);
    },

    async readVersions(keys) {
      if (keys.length === 0) return [];
      const names = keys.map(versionCounter);
      const { rows } = await raw<{ key: string; value: unknown }>(
        `select key, value::float8 as value from ${COUNTERS}
         where key in (select jsonb_array_elements_text(?::jsonb))`,
        [JSON.stringify(names)],
      );
      const found = new Map(rows.map((row) => [row.key, toNumber(row.value)]));
      return names.map((name) => found.get(name) ?? 0);
    },

    async findWithVersions<P extends TokenPayload>(
      model: string,
      id: string,
      versionKeys: readonly string[],
    ): Promise<RecordWithVersions<P>> {
      assertModelName(model);
      const names = versionKeys.map(versionCounter);
      const { rows } = await raw<RecordRow & { versions: Record<string, unknown> | string | null }>(
        `select r.payload, floor(extract(epoch from r.consumed_at))::float8 as consumed,
           (select coalesce(jsonb_object_agg(c.key, c.value), '{}'::jsonb) from ${COUNTERS} c
             where c.key in (select jsonb_array_elements_text(?::jsonb))) as versions
         from (values (1)) as one (x)
         left join ${RECORDS} r on r.model = ? and r.id = ? and (r.expires_at is null or r.expires_at > now())`,
        [JSON.stringify(names), model, id],
      );
      const row = rows[0];
      const map = (
        typeof row?.versions === 'string' ? JSON.parse(row.versions) : (row?.versions ?? {})
      ) as Record<string, unknown>;
      return {
        record: decodeRow<P>(row),
        versions: names.map((name) => (map[name] === undefined ? 0 : toNumber(map[name]))),
      };
    },

    async hashingBegan(now) {
      // A conflict "updates" the row to its own value: one statement that returns the value in
      // place, even to the loser of two concurrent first calls.
      const { rows } = await raw<{ value: unknown }>(
        `insert into ${COUNTERS} as c (key, value) values (?, ?)
         on conflict (key) do update set value = c.value
         returning value::float8 as value`,
        [HASHED_IDS_MARK, Math.floor(now)],
      );
      return toNumber(rows[0]!.value);
    },

    async ping() {
      await raw('select 1');
    },

    async close() {
      // The knex belongs to the database owner, who closes it.
    },

    async sweepExpired() {
      return (await sweep(RECORDS, 'model, id')) + (await sweep(COUNTERS, 'key'));
    },
  };
}
