import { findUserById, findUserDisabledAt } from '@sched/db/queries/users';
import type { Knex } from 'knex';
import type { Account } from 'oidc-provider';

/**
 * oidc-provider's `findAccount`: the account id is our user id as a string. A user who does not
 * exist (or a managed user of the deprecated family, or a disabled account) gets nothing issued. Users found are
 * remembered for a minute per process, so refreshing tokens does not query the database each
 * time; a deleted user's grant can therefore be refreshed for up to a minute, and the resource
 * API, which loads the user for every request, refuses those tokens anyway.
 */
const REMEMBER_MS = 60_000;
const MAX_ENTRIES = 10_000;

export function findAccount(knex: Knex) {
  const known = new Map<string, number>();
  return async function find(_ctx: unknown, sub: string): Promise<Account | undefined> {
    if (typeof sub !== 'string' || !/^[1-9][0-9]{0,15}$/.test(sub)) return undefined;
    const seen = known.get(sub);
    if (seen === undefined || Date.now() - seen > REMEMBER_MS) {
      const [user, disabledAt] = await Promise.all([
        findUserById(knex, Number(sub)),
        findUserDisabledAt(knex, Number(sub)),
      ]);
      if (!user || user.managedByClientId !== null || disabledAt !== null) {
        known.delete(sub);
        return undefined;
      }
      known.delete(sub);
      known.set(sub, Date.now());
      if (known.size > MAX_ENTRIES) known.delete(known.keys().next().value!);
    }
    return { accountId: sub, claims: () => userClaims(knex, sub) };
  };
}

/**
 * The OpenID Connect claims of a user, read from the database when an ID token or a userinfo answer
 * is made (not from the minute-long memory above, so a changed name shows at once). oidc-provider
 * keeps only those of the granted scopes (configuration.ts CLAIMS). Unset values are left out.
 */
async function userClaims(knex: Knex, sub: string): Promise<{ sub: string; [claim: string]: unknown }> {
  const user = await findUserById(knex, Number(sub));
  if (!user) return { sub };
  const claims: { sub: string; [claim: string]: unknown } = {
    sub,
    zoneinfo: user.timeZone,
    locale: user.locale,
    updated_at: Math.floor(user.updatedAt.getTime() / 1000),
    email: user.email,
    email_verified: user.emailVerifiedAt !== null,
  };
  if (user.name) claims.name = user.name;
  if (user.username) claims.preferred_username = user.username;
  return claims;
}
