import type { Knex } from 'knex';

/**
 * Account deletion (the bookings a user hosts are cancelled): a deleted host's bookings stay,
 * cancelled, for their attendees' links (cancel and reschedule answer that the booking is cancelled
 * instead of not found). The host column becomes nullable and is set null when the user row goes;
 * before this it deleted the bookings with the user.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table bookings drop constraint bookings_host_user_id_foreign');
  await knex.raw('alter table bookings alter column host_user_id drop not null');
  await knex.raw(
    'alter table bookings add constraint bookings_host_user_id_foreign foreign key (host_user_id) ' +
      'references users (id) on delete set null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table bookings drop constraint bookings_host_user_id_foreign');
  await knex.raw('delete from bookings where host_user_id is null');
  await knex.raw('alter table bookings alter column host_user_id set not null');
  await knex.raw(
    'alter table bookings add constraint bookings_host_user_id_foreign foreign key (host_user_id) ' +
      'references users (id) on delete cascade',
  );
}
