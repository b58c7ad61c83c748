import { hashPassword } from '@sched/kit/passwords';
import type { Knex } from 'knex';
import { DuplicateRecordError } from '../errors.ts';
import { createApiKey } from './api-keys.ts';
import { createUser, findUserByEmail } from './users.ts';

export interface ServiceAdminInput {
  email: string;
  password: string;
  name?: string | undefined;
}

/**
 * Makes sure a service administrator with this e-mail (case-insensitive) exists, without issuing
 * a key. Creates the user when missing (e-mail taken as verified, onboarding complete, default
 * schedule); otherwise marks the existing user as service admin and fills in password and name
 * only where they are missing: an existing password is never overwritten. Safe to run concurrently.
 */
export async function ensureServiceAdminUser(
  knex: Knex,
  input: ServiceAdminInput,
): Promise<{ userId: number; created: boolean }> {
  const existing = await findUserByEmail(knex, input.email);
  if (!existing) {
    try {
      const user = await createUser(knex, {
        email: input.email,
        password: input.password,
        name: input.name ?? null,
        isServiceAdmin: true,
        emailVerifiedAt: new Date(),
        onboardingStep: 'complete',
      });
      return { userId: user.id, created: true };
    } catch (error) {
      // Another process created it between our lookup and insert: fall through to "existing".
      if (!(error instanceof DuplicateRecordError)) throw error;
      const raced = await findUserByEmail(knex, input.email);
      if (!raced) throw error;
      return { userId: await promote(knex, raced.id, input), created: false };
    }
  }
  return { userId: await promote(knex, existing.id, input), created: false };
}

async function promote(knex: Knex, userId: number, input: ServiceAdminInput): Promise<number> {
  const row = (await knex('users').where({ id: userId }).first('password_hash', 'name')) as
    | { password_hash: string | null; name: string | null }
    | undefined;
  const changes: Record<string, unknown> = { is_service_admin: true, updated_at: knex.fn.now() };
  if (row && row.password_hash === null) changes['password_hash'] = await hashPassword(input.password);
  if (row && row.name === null && input.name) changes['name'] = input.name;
  await knex('users').where({ id: userId }).update(changes);
  return userId;
}

/**
 * `create-admin` and the ADMIN_EMAIL bootstrap: ensureServiceAdminUser, then a fresh API key on
 * every call (earlier keys keep working). The plain key is only in the return value.
 */
export async function ensureServiceAdmin(
  knex: Knex,
  input: ServiceAdminInput,
): Promise<{ userId: number; apiKey: string }> {
  const { userId } = await ensureServiceAdminUser(knex, input);
  const key = await createApiKey(knex, userId);
  return { userId, apiKey: key.plain };
}
