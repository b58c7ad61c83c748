import { hashPassword, verifyPassword } from '@sched/kit/passwords';
import type { Knex } from 'knex';
import { AdminAccountTakenError, DuplicateRecordError } from '../errors.ts';
import { createApiKey } from './api-keys.ts';
import { type AuditContext, recordAuditEvent } from './audit-log.ts';
import { createUser, findUserByEmail, nextCredentialEpoch } from './users.ts';

export interface ServiceAdminInput {
  email: string;
  password: string;
  name?: string | undefined;
}

/**
 * Makes sure a service administrator with this e-mail (case-insensitive) exists, without issuing
 * a key. Creates the user when missing (e-mail taken as verified, onboarding complete, default
 * schedule); otherwise marks the existing user as service admin and fills in password and name
 * only where they are missing: an existing password is never overwritten. An existing account
 * whose password is another one is never promoted (AdminAccountTakenError): whoever registered the
 * address first, an unverified sign-up included, would become an administrator with their own
 * password. An existing account that proves the password counts as verified from then on (the
 * operator named the address). Safe to run concurrently.
 * A creation or a change is written with its audit event (`user.created`, `user.admin_granted`,
 * `user.password_set`, `user.updated`; no address, name or password) in one transaction; `audit` names who acts
 * (the operator CLI), the system without one (the ADMIN_EMAIL bootstrap).
 */
export async function ensureServiceAdminUser(
  knex: Knex,
  input: ServiceAdminInput,
  audit?: AuditContext,
): Promise<{ userId: number; created: boolean }> {
  return knex.transaction(async (trx) => {
    const existing = await findUserByEmail(trx, input.email);
    if (existing) return { userId: await promote(trx, existing.id, input, audit), created: false };
    try {
      // createUser's own transaction is a savepoint here: a duplicate leaves ours usable.
      const user = await createUser(trx, {
        email: input.email,
        password: input.password,
        name: input.name ?? null,
        isServiceAdmin: true,
        emailVerifiedAt: new Date(),
        onboardingStep: 'complete',
      });
      await recordAuditEvent(trx, audit, {
        action: 'user.created',
        targetType: 'user',
        targetId: user.id,
        after: { emailVerified: true, hasPassword: true, serviceAdmin: true },
        details: { through: 'service_admin_bootstrap' },
      });
      return { userId: user.id, created: true };
    } catch (error) {
      // Another process created it between our lookup and insert: fall through to "existing".
      if (!(error instanceof DuplicateRecordError)) throw error;
      const raced = await findUserByEmail(trx, input.email);
      if (!raced) throw error;
      return { userId: await promote(trx, raced.id, input, audit), created: false };
    }
  });
}

async function promote(
  trx: Knex,
  userId: number,
  input: ServiceAdminInput,
  audit: AuditContext | undefined,
): Promise<number> {
  const row = (await trx('users')
    .where({ id: userId })
    .forUpdate()
    .first('password_hash', 'name', 'is_service_admin', 'email_verified_at')) as
    | {
        password_hash: string | null;
        name: string | null;
        is_service_admin: boolean;
        email_verified_at: Date | null;
      }
    | undefined;
  if (!row) return userId;
  const setPassword = row.password_hash === null;
  if (!setPassword && !(await verifyPassword(input.password, row.password_hash))) {
    throw new AdminAccountTakenError(input.email, row.is_service_admin);
  }
  const setName = row.name === null && Boolean(input.name);
  const setVerified = row.email_verified_at === null;
  // Already an administrator with a password, a name and a verified address: nothing changes.
  if (row.is_service_admin && !setPassword && !setName && !setVerified) return userId;
  const changes: Record<string, unknown> = { is_service_admin: true, updated_at: trx.fn.now() };
  if (setPassword)
    Object.assign(changes, { password_hash: await hashPassword(input.password) }, nextCredentialEpoch(trx));
  if (setName) changes['name'] = input.name;
  if (setVerified) changes['email_verified_at'] = trx.fn.now();
  await trx('users').where({ id: userId }).update(changes);
  await recordAuditEvent(trx, audit, {
    action: !row.is_service_admin ? 'user.admin_granted' : setPassword ? 'user.password_set' : 'user.updated',
    targetType: 'user',
    targetId: userId,
    before: { serviceAdmin: row.is_service_admin, hasPassword: !setPassword, emailVerified: !setVerified },
    after: { serviceAdmin: true, hasPassword: true, emailVerified: true },
    details: { nameSet: setName },
  });
  return userId;
}

/**
 * `create-admin` and the ADMIN_EMAIL bootstrap: ensureServiceAdminUser, then a fresh API key on
 * every call (earlier keys keep working), in one transaction with their audit events. The plain
 * key is only in the return value.
 */
export async function ensureServiceAdmin(
  knex: Knex,
  input: ServiceAdminInput,
  audit?: AuditContext,
): Promise<{ userId: number; apiKey: string }> {
  return knex.transaction(async (trx) => {
    const { userId } = await ensureServiceAdminUser(trx, input, audit);
    const key = await createApiKey(trx, userId, audit);
    return { userId, apiKey: key.plain };
  });
}
