import type { Knex } from 'knex';

/**
 * ID-token signing keys, kept in the database so every auth process shares them. One `active` key
 * signs; `retiring` keys only verify (they stay in the JWKS until no ID token they signed can still
 * be valid, then they are deleted). The private JWK is stored encrypted (AES-256-GCM with a key
 * derived from KEY_ENCRYPTION_KEY or COOKIE_KEYS, services/auth/src/keys/signing-keys.ts); the
 * public JWK is stored as it is published.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('signing_keys', (table) => {
    table.text('kid').primary();
    table.text('alg').notNullable();
    table.text('state').notNullable();
    table.jsonb('public_jwk').notNullable();
    table.text('private_jwk_encrypted').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    /** When it stopped signing (null while active). */
    table.timestamp('retired_at', { useTz: true });
    table.check("alg in ('ES256', 'RS256')", [], 'signing_keys_alg');
    table.check("state in ('active', 'retiring')", [], 'signing_keys_state');
    table.check("(state = 'active') = (retired_at is null)", [], 'signing_keys_retired_at');
  });
  // At most one key signs.
  await knex.raw(
    "create unique index signing_keys_one_active on signing_keys (state) where state = 'active'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('signing_keys');
}
