import type { Knex } from '@sched/db/connection';
import { listAuditEvents, recordAuditEvent } from '@sched/db/queries/audit-log';
import test, { type ExecutionContext } from 'ava';
import { createTestDatabase, databaseBackends, type TestDatabase } from '../support/database.ts';

// The audit log is append-only in the database itself (migration 0015): UPDATE, DELETE and
// TRUNCATE of audit_log are refused by triggers, on Postgres and PGlite; deleting a user who acted
// keeps their events (no foreign key that would update them).

const databases = new Map<string, TestDatabase>();

test.before(async () => {
  for (const backend of databaseBackends()) databases.set(backend, await createTestDatabase({ backend }));
});

test.after.always(async () => {
  for (const database of databases.values()) await database.drop();
});

function eachBackend(title: string, body: (t: ExecutionContext, knex: Knex) => Promise<void>) {
  for (const backend of databaseBackends()) {
    test.serial(`${backend}: ${title}`, (t) => body(t, databases.get(backend)!.db.knex));
  }
}

let counter = 0;
async function newUser(knex: Knex): Promise<number> {
  counter += 1;
  const [row] = await knex('users')
    .insert({ email: `audit${counter}@example.com`, name: 'A' })
    .returning('id');
  return Number((row as { id: number }).id);
}

async function newEvent(knex: Knex, actorUserId: number | null = null): Promise<number> {
  await recordAuditEvent(
    knex,
    {
      actor: actorUserId === null ? { kind: 'system', userId: null } : { kind: 'user', userId: actorUserId },
      requestId: 'req-1',
      ipAddress: '203.0.113.9',
    },
    { action: 'test.happened', targetType: 'thing', targetId: 7, before: { a: 1 }, after: { a: 2 } },
  );
  const row = await knex('audit_log').orderBy('id', 'desc').first('id');
  return Number(row.id);
}

const APPEND_ONLY = /audit_log is append-only/;

eachBackend('an UPDATE of an audit event is refused', async (t, knex) => {
  const id = await newEvent(knex);
  await t.throwsAsync(knex('audit_log').where({ id }).update({ action: 'rewritten' }), {
    message: APPEND_ONLY,
  });
  await t.throwsAsync(knex('audit_log').update({ details: '{}' }), { message: APPEND_ONLY });
  t.is((await knex('audit_log').where({ id }).first()).action, 'test.happened');
});

eachBackend('a DELETE of an audit event is refused', async (t, knex) => {
  const id = await newEvent(knex);
  await t.throwsAsync(knex('audit_log').where({ id }).delete(), { message: APPEND_ONLY });
  t.truthy(await knex('audit_log').where({ id }).first());
});

eachBackend('TRUNCATE of the audit log is refused', async (t, knex) => {
  await newEvent(knex);
  await t.throwsAsync(knex.raw('truncate audit_log'), { message: APPEND_ONLY });
  t.true(Number((await knex('audit_log').count({ n: '*' }).first())!.n) > 0);
});

eachBackend('deleting a user who acted keeps their events as they were', async (t, knex) => {
  const user = await newUser(knex);
  const id = await newEvent(knex, user);
  await knex('users').where({ id: user }).delete();
  t.like(await knex('audit_log').where({ id }).first(), { actor_user_id: user, actor_kind: 'user' });
});

eachBackend('an event written in a transaction that rolls back is not kept', async (t, knex) => {
  const before = Number((await knex('audit_log').count({ n: '*' }).first())!.n);
  await t.throwsAsync(
    knex.transaction(async (trx) => {
      await recordAuditEvent(trx, undefined, {
        action: 'test.rolled_back',
        targetType: 'thing',
        targetId: 1,
      });
      throw new Error('the change failed');
    }),
    { message: 'the change failed' },
  );
  t.is(Number((await knex('audit_log').count({ n: '*' }).first())!.n), before);
});

eachBackend('paging by cursor walks every event once, newest first', async (t, knex) => {
  // Several events of one transaction share created_at: the id orders them.
  await knex.transaction(async (trx) => {
    for (let i = 0; i < 5; i++)
      await recordAuditEvent(trx, undefined, { action: 'test.paged', targetType: 'page', targetId: i });
  });
  for (let i = 5; i < 7; i++)
    await recordAuditEvent(knex, undefined, { action: 'test.paged', targetType: 'page', targetId: i });
  const seen: string[] = [];
  let cursor: Parameters<typeof listAuditEvents>[2]['cursor'];
  for (;;) {
    const page = await listAuditEvents(
      knex,
      { action: 'test.paged' },
      { take: 2, ...(cursor ? { cursor } : {}) },
    );
    seen.push(...page.events.map((event) => event.targetId!));
    if (!page.next) break;
    cursor = page.next;
  }
  t.deepEqual(seen, ['6', '5', '4', '3', '2', '1', '0']);
});
