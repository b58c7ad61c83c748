import type { Knex } from 'knex';

/**
 * Agent clients (AI agents and other clients that register themselves, docs/operators-agents.md):
 * `registration` says how a client came to be: `settings` (settings pages, API, CLI: the seed's
 * clients), `metadata_document` (its client_id is the https URL of its Client ID Metadata Document)
 * or `dynamic` (RFC 7591 registration). Agent clients have no owner, so `owner_user_id` becomes
 * optional for them; only metadata-document clients may have a URL as their id.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_clients', (table) => {
    table.text('registration').notNullable().defaultTo('settings');
    table.check(
      "registration in ('settings', 'metadata_document', 'dynamic')",
      [],
      'oauth_clients_registration_check',
    );
    table.check("registration <> 'settings' or owner_user_id is not null", [], 'oauth_clients_owner_check');
  });
  await knex.raw('alter table oauth_clients alter column owner_user_id drop not null');
  await knex.raw('alter table oauth_clients drop constraint oauth_clients_id_format');
  await knex.raw(
    `alter table oauth_clients add constraint oauth_clients_id_format check (
       id ~ '^[A-Za-z0-9_-]+$'
       or (registration = 'metadata_document' and id ~ '^https://[^[:space:]#]+$' and length(id) <= 1000)
     )`,
  );
  await knex.raw(
    "create index oauth_clients_agents on oauth_clients (created_at) where registration <> 'settings'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('oauth_clients').whereNot({ registration: 'settings' }).delete();
  await knex.raw('drop index oauth_clients_agents');
  await knex.raw('alter table oauth_clients drop constraint oauth_clients_id_format');
  await knex.raw(
    "alter table oauth_clients add constraint oauth_clients_id_format check (id ~ '^[A-Za-z0-9_-]+$')",
  );
  await knex.raw('alter table oauth_clients alter column owner_user_id set not null');
  await knex.schema.alterTable('oauth_clients', (table) => {
    table.dropChecks(['oauth_clients_registration_check', 'oauth_clients_owner_check']);
    table.dropColumn('registration');
  });
}
