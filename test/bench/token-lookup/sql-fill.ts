import { isDeepStrictEqual } from 'node:util';
import { storedTokenId, TOKEN_TABLES } from '@sched/db/token-store/keys';
import { createSqlTokenStore } from '@sched/db/token-store/sql';
import type { Knex } from 'knex';
import {
  ACCESS_TOKEN_TTL_S,
  GRANT_TTL_S,
  type GrantIds,
  grantRecords,
  payloadTemplates,
  REFRESH_TOKEN_TTL_S,
} from './grants.ts';

const RECORDS = TOKEN_TABLES.records;
/** Grants per statement (three rows each). */
const BATCH = 10_000;
const IN_FLIGHT = 2;

/**
 * The rows the SQL store's `upsert` writes for a grant's three records (grant_id from the payload,
 * account_id and client_id for the owner index, expires_at = now() + TTL), many grants a statement:
 * the ids arrive as JSON, the payloads are made in the database from the templates.
 * `checkSqlLayout` compares one grant written both ways.
 */
const INSERT = `
insert into ${RECORDS} (model, id, payload, grant_id, account_id, client_id, expires_at)
select m.model, x.id,
  replace(replace(replace(replace(replace(m.template,
    '__GRANT__', g.g), '__JTI__', x.id), '__ACCOUNT__', g.u), '__CLIENT__', g.c), '__SESSION__', g.s)::jsonb,
  case when m.model = 'Grant' then null else g.g end,
  g.u, g.c, now() + make_interval(secs => m.ttl)
from jsonb_to_recordset(?::jsonb) as g (g text, a text, r text, u text, c text, s text)
cross join (values ('Grant', ?::text, ?::float8), ('AccessToken', ?::text, ?::float8),
                   ('RefreshToken', ?::text, ?::float8)) as m (model, template, ttl)
cross join lateral (select case m.model when 'Grant' then g.g when 'AccessToken' then g.a else g.r end as id) as x`;

/** Fills grants 0 .. count - 1 of `idsOf`, then ANALYZEs the table (autovacuum would, later). */
export async function fillSql(
  knex: Knex,
  idsOf: (index: number) => GrantIds,
  count: number,
  nowSeconds: number,
): Promise<void> {
  const templates = payloadTemplates(nowSeconds);
  const models = [
    templates.Grant,
    GRANT_TTL_S,
    templates.AccessToken,
    ACCESS_TOKEN_TTL_S,
    templates.RefreshToken,
    REFRESH_TOKEN_TTL_S,
  ];
  let next = 0;
  const insertBatches = async () => {
    while (next < count) {
      const from = next;
      next = Math.min(count, next + BATCH);
      const rows: Array<Record<string, string>> = [];
      for (let index = from; index < next; index++) {
        const ids = idsOf(index);
        rows.push({
          g: ids.grantId,
          a: storedTokenId(ids.accessTokenId),
          r: storedTokenId(ids.refreshTokenId),
          u: ids.accountId,
          c: ids.clientId,
          s: ids.sessionUid,
        });
      }
      await knex.transaction(async (trx) => {
        // A bulk load: waiting for each commit's WAL flush buys nothing here.
        await trx.raw('set local synchronous_commit = off');
        await trx.raw(INSERT, [JSON.stringify(rows), ...models]);
      });
    }
  };
  // Two statements at once: index upkeep is most of the cost, and each runs on a core of its own.
  await Promise.all(Array.from({ length: IN_FLIGHT }, insertBatches));
  await knex.raw(`analyze ${RECORDS}`);
}

/** `ver:user:<id>` = 1 for every account (see fillUserVersions in redis-fill.ts), then ANALYZE. */
export async function fillUserVersionsSql(knex: Knex, { first, last }: { first: number; last: number }) {
  await knex.raw(
    `insert into ${TOKEN_TABLES.counters} (key, value)
     select 'ver:user:' || g, 1 from generate_series(?::int, ?::int) as g`,
    [first, last],
  );
  await knex.raw(`analyze ${TOKEN_TABLES.counters}`);
}

/** The grant's rows as the store would return them to a comparison (times as "set or not"). */
async function rowsOf(knex: Knex, ids: GrantIds): Promise<unknown[]> {
  const { rows } = (await knex.raw(
    `select model, id, payload, grant_id, uid, user_code, account_id, client_id,
            consumed_at is not null as consumed,
            expires_at between now() + interval '1 second' and now() + make_interval(days => 31) as expires
     from ${RECORDS} where id in (?, ?, ?) order by model`,
    [ids.grantId, storedTokenId(ids.accessTokenId), storedTokenId(ids.refreshTokenId)],
  )) as { rows: unknown[] };
  await knex.raw(`delete from ${RECORDS} where id in (?, ?, ?)`, [
    ids.grantId,
    storedTokenId(ids.accessTokenId),
    storedTokenId(ids.refreshTokenId),
  ]);
  return rows;
}

/** Throws unless one grant written by the store and by `fillSql` leaves the same rows. */
export async function checkSqlLayout(knex: Knex, ids: GrantIds, nowSeconds: number): Promise<void> {
  const store = createSqlTokenStore({ knex });
  const [grant, accessToken, refreshToken] = grantRecords(ids, nowSeconds);
  await store.upsert(grant!.model, grant!.id, grant!.payload, grant!.expiresInSeconds);
  await store.consumeAndUpsert(undefined, [accessToken!, refreshToken!]);
  const byStore = await rowsOf(knex, ids);
  await fillSql(knex, () => ids, 1, nowSeconds);
  const byFill = await rowsOf(knex, ids);
  if (byStore.length !== 3 || !isDeepStrictEqual(byStore, byFill)) {
    throw new Error(
      `the SQL filler no longer writes what the store writes:\nstore: ${JSON.stringify(byStore)}\nfill:  ${JSON.stringify(byFill)}`,
    );
  }
}

/** Bytes of the records table and of each of its indexes. */
export async function sqlSizes(
  knex: Knex,
): Promise<{ total: number; table: number; indexes: Record<string, number> }> {
  const { rows } = (await knex.raw(
    `select pg_total_relation_size(?::regclass)::float8 as total,
            pg_relation_size(?::regclass)::float8 as heap,
            (select coalesce(jsonb_object_agg(indexrelid::regclass::text, pg_relation_size(indexrelid)), '{}')
               from pg_index where indrelid = ?::regclass) as indexes`,
    [RECORDS, RECORDS, RECORDS],
  )) as { rows: Array<{ total: number; heap: number; indexes: Record<string, number> | string }> };
  const row = rows[0]!;
  const indexes = typeof row.indexes === 'string' ? JSON.parse(row.indexes) : row.indexes;
  return { total: Number(row.total), table: Number(row.heap), indexes };
}
