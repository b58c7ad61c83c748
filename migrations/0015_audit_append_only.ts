import type { Knex } from 'knex';

/**
 * The audit log becomes append-only, enforced by the database (docs/schema.md): triggers refuse
 * UPDATE, DELETE and TRUNCATE of `audit_log`. Each event now says who acted and how (`actor_kind`
 * user / api_key / oauth_client / system, with the API key or OAuth client), the organization it
 * belongs to (organization audit view), the values before and after, the request id and the
 * caller's address.
 *
 * The foreign key from `actor_user_id` to users goes: its ON DELETE SET NULL would UPDATE audit
 * rows when an account is deleted, which the trigger refuses. The id stays as a plain number (an
 * id says nothing about a deleted person; no e-mail or name is kept in the log).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audit_log', (table) => {
    table.dropForeign(['actor_user_id']);
    table.text('actor_kind').notNullable().defaultTo('system');
    table.bigInteger('actor_api_key_id');
    table.text('actor_client_id');
    table.bigInteger('organization_id');
    table.jsonb('before');
    table.jsonb('after');
    table.text('request_id');
    table.text('ip_address');
    table.check(
      "actor_kind in ('user', 'api_key', 'oauth_client', 'system')",
      [],
      'audit_log_actor_kind_check',
    );
  });
  // Entries written before this step were all made by a signed-in user or an API-key user.
  await knex('audit_log').whereNotNull('actor_user_id').update({ actor_kind: 'user' });
  await knex.raw(
    'create index audit_log_organization on audit_log (organization_id, created_at, id) where organization_id is not null',
  );
  await knex.raw('create index audit_log_action on audit_log (action, created_at)');
  await knex.raw(`
    create function audit_log_refuse_change() returns trigger language plpgsql as $$
    begin
      raise exception 'audit_log is append-only: % refused', tg_op using errcode = 'P0A01';
    end
    $$`);
  await knex.raw(`
    create trigger audit_log_append_only before update or delete on audit_log
    for each row execute function audit_log_refuse_change()`);
  await knex.raw(`
    create trigger audit_log_no_truncate before truncate on audit_log
    for each statement execute function audit_log_refuse_change()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists audit_log_no_truncate on audit_log');
  await knex.raw('drop trigger if exists audit_log_append_only on audit_log');
  await knex.raw('drop function if exists audit_log_refuse_change()');
  await knex.raw('drop index if exists audit_log_action');
  await knex.raw('drop index if exists audit_log_organization');
  await knex.schema.alterTable('audit_log', (table) => {
    table.dropChecks(['audit_log_actor_kind_check']);
    table.dropColumns(
      'actor_kind',
      'actor_api_key_id',
      'actor_client_id',
      'organization_id',
      'before',
      'after',
      'request_id',
      'ip_address',
    );
  });
  // The foreign key comes back: actors deleted in the meantime become null, as it would have done.
  await knex('audit_log')
    .whereNotNull('actor_user_id')
    .whereNotExists(knex('users').select(knex.raw('1')).whereRaw('users.id = audit_log.actor_user_id'))
    .update({ actor_user_id: null });
  await knex.schema.alterTable('audit_log', (table) => {
    table.foreign('actor_user_id').references('id').inTable('users').onDelete('SET NULL');
  });
}
