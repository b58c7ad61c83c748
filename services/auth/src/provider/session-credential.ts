import type { User } from '@sched/db/queries/users';
import type Provider from 'oidc-provider';

/**
 * A browser session counts only while the password it was signed in with is the account's. Each
 * session record keeps the account's credential epoch as read together with the password it proved
 * (`users.credential_epoch`, moved on by every password write); a session whose epoch is not the
 * account's is treated as signed out wherever it is used (settings pages, authorizations). Ending
 * sessions after a reset or change is not enough alone: a sign-in that checked the old password
 * just before the change may save its session after the others were ended, and oidc-provider
 * re-saves a session it loaded at the end of every request. Records saved before the epoch existed
 * carry none and count as epoch 0, every account's first.
 */
type StampedSession = { credentialEpoch?: number };

/** Adds `credentialEpoch` to what a Session record stores. Call once, right after creating the provider. */
export function storeCredentialEpochOnSessions(provider: Provider): void {
  const Session = provider.Session as unknown as { IN_PAYLOAD: string[] };
  const stored = [...Session.IN_PAYLOAD, 'credentialEpoch'];
  Object.defineProperty(Session, 'IN_PAYLOAD', { configurable: true, get: () => stored });
}

/** Marks the session as signed in with `user`'s current password (the user as the sign-in read it). */
export function stampSession(session: object, user: Pick<User, 'credentialEpoch'>): void {
  (session as StampedSession).credentialEpoch = user.credentialEpoch;
}

export function sessionIsCurrent(session: object, user: Pick<User, 'credentialEpoch'>): boolean {
  return ((session as StampedSession).credentialEpoch ?? 0) === user.credentialEpoch;
}

/**
 * Takes the account out of a session record, which keeps its uid (an interaction may be bound to
 * it): its account, sign-in details, epoch and authorizations go.
 */
export function signOutSessionRecord(session: object): void {
  const record = session as Record<string, unknown>;
  for (const field of ['accountId', 'loginTs', 'amr', 'acr', 'transient', 'credentialEpoch'])
    delete record[field];
  record['authorizations'] = {};
}
