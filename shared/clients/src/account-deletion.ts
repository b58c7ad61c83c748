import type { AuditContext } from '@sched/db/queries/audit-log';
import {
  type DeletedAccount,
  deleteAccount as deleteAccountRows,
  type SoleOwnership,
} from '@sched/db/queries/account-deletion';
import { ConflictError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';
import { endEverythingOf } from '@sched/accounts/end-everything';

/**
 * Account deletion, for `DELETE /v2/me` and the settings page alike. Refused with 409 while the
 * user is the last accepted OWNER of an organization or team (the message names them). Otherwise
 * the database part (`@sched/db/queries/account-deletion`: bookings they host cancelled, the users
 * row deleted, memberships, API keys, consents and their own OAuth clients going with it by foreign
 * key) commits first, then the token store follows: every OAuth grant and token and every browser
 * session of the account (`endEverythingOf`), and every token of the clients that went with it
 * (other users' authorizations of those clients). The account's calendar connections go with the
 * rows; their grants at Google are revoked as a disconnect revokes them.
 */

/** `organization "Acme"`, `team "Support"`. */
const describe = (ownership: SoleOwnership) => `${ownership.kind} "${ownership.name}"`;

/** The 409 message: `You are the last owner of: organization "Acme", team "Support". Hand ...`. */
export const soleOwnerMessage = (ownerships: readonly SoleOwnership[]): string =>
  `You are the last owner of: ${ownerships.map(describe).join(', ')}. ` +
  'Hand ownership to someone else or delete them first.';

export class LastOwnerError extends ConflictError {
  readonly ownerships: readonly SoleOwnership[];
  constructor(ownerships: readonly SoleOwnership[]) {
    super(
      soleOwnerMessage(ownerships),
      ownerships.map((ownership) => ({ kind: ownership.kind, id: ownership.id, name: ownership.name })),
    );
    this.ownerships = ownerships;
  }
}

export async function deleteAccount(
  deps: Runtime,
  userId: number,
  audit?: AuditContext,
): Promise<DeletedAccount> {
  const store = deps.stores.tokenStore;
  // Read while the calendar credentials are stored; run once the account is gone for good.
  const revokeCalendars = await deps.calendars.prepareRevocations(userId);
  const result = await deleteAccountRows(deps.stores.db.knex, store, userId, audit);
  if (!result.deleted) throw new LastOwnerError(result.soleOwnerOf);
  const { account } = result;
  await Promise.all([
    ...account.userIds.map((id) => endEverythingOf(deps, id)),
    ...account.clientIds.map((clientId) => store.revokeByClient(clientId)),
    revokeCalendars(),
  ]);
  deps.logger.info(
    { userId, clients: account.clientIds.length, cancelledBookings: account.cancelledBookings },
    'account deleted',
  );
  return account;
}
