import type { Knex } from 'knex';

/**
 * Resource servers (token introspection): registered by a service administrator, they may
 * introspect any token. Only the SHA-256 of the secret is stored (like client secrets); the plain
 * secret is shown once, in the answer of `POST /v2/admin/resource-servers`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('resource_servers', (table) => {
    table.text('id').primary();
    table.text('name').notNullable();
    table.text('description');
    table.text('secret_hash').notNullable();
    table.text('secret_hint').notNullable();
    table.bigInteger('created_by_user_id').references('id').inTable('users').onDelete('SET NULL');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.check("secret_hash ~ '^[0-9a-f]{64}$'", [], 'resource_servers_secret_sha256');
    table.check("id ~ '^rs_[A-Za-z0-9_-]{22}$'", [], 'resource_servers_id_format');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('resource_servers');
}
