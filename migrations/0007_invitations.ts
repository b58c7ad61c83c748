import type { Knex } from 'knex';

/**
 * Invitations by e-mail address (docs/schema.md, "Invitations"). An invitation sent to an address
 * is a membership row with `invited_email` and no `user_id` until someone whose verified address
 * it is accepts it: the inviter learns nothing about whether the address has an account, and no
 * account is made on the invitee's behalf. `invited_by_user_id` names the inviter for the invitee.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('memberships', (table) => {
    table.setNullable('user_id');
    table.text('invited_email');
    table.bigInteger('invited_by_user_id').references('id').inTable('users').onDelete('SET NULL');
  });
  await knex.raw(`alter table memberships add constraint memberships_user_or_invited_email
    check ((user_id is null) <> (invited_email is null))`);
  await knex.raw(`alter table memberships add constraint memberships_accepted_has_user
    check (not accepted or user_id is not null)`);
  // One pending invitation per address and organization or team.
  await knex.raw(`create unique index memberships_invited_email_team_unique
    on memberships (lower(invited_email), team_id) where invited_email is not null and team_id is not null`);
  await knex.raw(`create unique index memberships_invited_email_organization_unique
    on memberships (lower(invited_email), organization_id)
    where invited_email is not null and organization_id is not null`);
}

export async function down(knex: Knex): Promise<void> {
  await knex('memberships').whereNull('user_id').delete();
  await knex.raw('drop index if exists memberships_invited_email_organization_unique');
  await knex.raw('drop index if exists memberships_invited_email_team_unique');
  await knex.raw('alter table memberships drop constraint if exists memberships_accepted_has_user');
  await knex.raw('alter table memberships drop constraint if exists memberships_user_or_invited_email');
  await knex.schema.alterTable('memberships', (table) => {
    table.dropColumn('invited_by_user_id');
    table.dropColumn('invited_email');
    table.dropNullable('user_id');
  });
}
