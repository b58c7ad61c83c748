import type { Knex } from 'knex';

/**
 * The token store's owner index (docs/token-store.md "Owner index"): the account and client a
 * record belongs to, copied from its payload like grant_id, so that every record of a user for a
 * client, of a client, or of a user is found (and revoked) by one indexed statement. The columns
 * live on the record's own row: they expire and are swept with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table token_records add column account_id text, add column client_id text');
  // Records written before this step: an account id (without ':') and, when there is one, a client id.
  await knex.raw(
    `update token_records set
       account_id = payload->>'accountId',
       client_id = case when jsonb_typeof(payload->'clientId') = 'string'
                         and length(payload->>'clientId') between 1 and 256
                        then payload->>'clientId' end
     where jsonb_typeof(payload->'accountId') = 'string'
       and length(payload->>'accountId') between 1 and 256
       and position(':' in payload->>'accountId') = 0`,
  );
  await knex.raw(
    'create index token_records_account_client on token_records (account_id, client_id) where account_id is not null',
  );
  await knex.raw(
    'create index token_records_client on token_records (client_id) where client_id is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists token_records_client');
  await knex.raw('drop index if exists token_records_account_client');
  await knex.raw(
    'alter table token_records drop column if exists client_id, drop column if exists account_id',
  );
}
