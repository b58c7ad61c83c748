import { findEnabledUserById, findUserById } from '@sched/db/queries/users';
import type { Knex } from 'knex';
import type { Account, KoaContextWithOIDC } from 'oidc-provider';
import { sessionIsCurrent, signOutSessionRecord } from './session-credential.ts';

/**
 * oidc-provider's `findAccount`: the account id is our user id as a string. A user who does not
 * exist (or a managed user of the deprecated family, or a disabled account) gets nothing issued. Users found are
 * remembered for a minute per process, so refreshing tokens does not query the database each
 * time; a deleted user's grant can therefore be refreshed for up to a minute, and the resource
 * API, which loads the user for every request, refuses those tokens anyway.
 * The browser session's account (no token: authorization and resume) is read every time: a session
 * signed in with a password the account no longer has is signed out here (its record loses the
 * account, so oidc-provider asks for a sign-in), as the settings pages treat it
 * (`session-credential.ts`).
 */
const REMEMBER_MS = 60_000;
const MAX_ENTRIES = 10_000;

export type FindAccount = (ctx: unknown, sub: string, token?: unknown) => Promise<Account | undefined>;

export function findAccount(knex: Knex): FindAccount {
  const known = new Map<string, number>();
  return async function find(ctx: unknown, sub: string, token?: unknown): Promise<Account | undefined> {
    if (typeof sub !== 'string' || !/^[1-9][0-9]{0,15}$/.test(sub)) return undefined;
    const session = token === undefined ? sessionOf(ctx, sub) : undefined;
    const seen = known.get(sub);
    if (session !== undefined || seen === undefined || Date.now() - seen > REMEMBER_MS) {
      const user = await findEnabledUserById(knex, Number(sub));
      if (!user || user.managedByClientId !== null) {
        known.delete(sub);
        return undefined;
      }
      if (session !== undefined && !sessionIsCurrent(session, user)) {
        signOutSessionRecord(session);
        return undefined;
      }
      known.delete(sub);
      known.set(sub, Date.now());
      if (known.size > MAX_ENTRIES) known.delete(known.keys().next().value!);
    }
    return { accountId: sub, claims: () => userClaims(knex, sub) };
  };
}

/** The browser session of the request when it is signed in as `sub`. */
function sessionOf(ctx: unknown, sub: string): object | undefined {
  const session = (ctx as Partial<KoaContextWithOIDC> | undefined)?.oidc?.session;
  return session?.accountId === sub ? session : undefined;
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
