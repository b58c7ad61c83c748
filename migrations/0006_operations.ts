import type { Knex } from 'knex';

/** Outgoing mail queue and the audit log (docs/schema.md). */
export async function up(knex: Knex): Promise<void> {
  // Written in the same transaction as the change that causes the message (transactional outbox);
  // a sender delivers rows whose next_attempt_at has come and marks them sent.
  await knex.schema.createTable('mail_outbox', (table) => {
    table.bigIncrements('id');
    table.text('recipient').notNullable();
    table.text('subject').notNullable();
    table.text('text_body').notNullable();
    table.text('html_body');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('sent_at', { useTz: true });
    table.integer('attempts').notNullable().defaultTo(0);
    table.text('last_error');
    table.check('attempts >= 0', [], 'mail_outbox_attempts_check');
  });
  await knex.raw('create index mail_outbox_pending on mail_outbox (next_attempt_at) where sent_at is null');

  await knex.schema.createTable('audit_log', (table) => {
    table.bigIncrements('id');
    table.bigInteger('actor_user_id').references('id').inTable('users').onDelete('SET NULL');
    table.text('action').notNullable();
    table.text('subject_type').notNullable();
    table.text('subject_id');
    table.jsonb('details').notNullable().defaultTo(knex.raw("'{}'::jsonb"));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['subject_type', 'subject_id', 'created_at'], 'audit_log_subject');
    table.index(['created_at'], 'audit_log_created_at');
  });
  await knex.raw(
    'create index audit_log_actor on audit_log (actor_user_id, created_at) where actor_user_id is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_log');
  await knex.schema.dropTableIfExists('mail_outbox');
}
