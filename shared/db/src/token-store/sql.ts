import type { Knex } from 'knex';
import { rateCounter, TOKEN_TABLES, versionCounter } from './keys.ts';
import {
  assertModelName,
  checkExpiresIn,
  checkWindow,
  type RateHit,
  type RecordRef,
  type RecordWithVersions,
  type RecordWrite,
  type TokenPayload,
  type TokenStore,
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

export interface SqlTokenStoreOptions {
  /** A knex on Postgres or PGlite with migration 0002_token_store applied. */
  knex: Knex;
}

/**
 * The token store in the database (the embedded default, durable across restarts). Expired rows
 * are never returned; `sweepExpired()` deletes them (called periodically by the service).
 */
export function createSqlTokenStore({ knex }: SqlTokenStoreOptions): TokenStore {
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
    await raw(
      `insert into ${RECORDS} (model, id, payload, grant_id, uid, user_code, consumed_at, expires_at)
       values (?, ?, ?::jsonb, ?, ?, ?, to_timestamp(?::float8),
               now() + make_interval(secs => ?::float8))
       on conflict (model, id) do update set
         payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
         user_code = excluded.user_code, consumed_at = excluded.consumed_at, expires_at = excluded.expires_at`,
      [
        model,
        id,
        JSON.stringify(payload),
        text(payload.grantId),
        text(payload.uid),
        text(payload.userCode),
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

    async destroy(model, id) {
      assertModelName(model);
      await raw(`delete from ${RECORDS} where model = ? and id = ?`, [model, id]);
    },

    async revokeByGrantId(grantId) {
      const result = await raw(`delete from ${RECORDS} where grant_id = ?`, [grantId]);
      return result.rowCount ?? 0;
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
