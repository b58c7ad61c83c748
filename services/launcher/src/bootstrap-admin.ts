import type { Knex } from '@sched/db/connection';
import { AdminAccountTakenError } from '@sched/db/errors';
import type { AuditContext } from '@sched/db/queries/audit-log';
import { ensureServiceAdminUser, type ServiceAdminInput } from '@sched/db/queries/admin';
import { findUserByEmail, findUserDisabledAt } from '@sched/db/queries/users';

/** What the ADMIN_EMAIL / ADMIN_PASSWORD bootstrap did. */
export type BootstrapOutcome =
  /** Made or promoted, or an administrator already (`passwordKept`: they changed theirs since). */
  | { made: true; userId: number; passwordKept: boolean }
  /** The address belongs to an account with another password that is no administrator, or a disabled one. */
  | { made: false; reason: string };

/**
 * ADMIN_EMAIL / ADMIN_PASSWORD, at start-up (`npm start`) and in the deployment's one-shot
 * `migrate` step alike: the service administrator, made or promoted. Neither refusal stops the
 * deployment: an administrator who changed their password since is what should happen (the
 * variables stay in the deployment's settings), and an account someone else registered with the
 * address first must not let them keep the service down; it stays as it is, and the operator is
 * told what to do.
 */
export async function bootstrapServiceAdmin(
  knex: Knex,
  admin: ServiceAdminInput,
  audit?: AuditContext,
): Promise<BootstrapOutcome> {
  const existing = await findUserByEmail(knex, admin.email);
  if (existing && (await findUserDisabledAt(knex, existing.id)) !== null)
    return {
      made: false,
      reason: `ADMIN_EMAIL: the account with the e-mail ${admin.email} is disabled; run enable-user --email ${admin.email} to use it again`,
    };
  try {
    const { userId } = await ensureServiceAdminUser(knex, admin, audit);
    return { made: true, userId, passwordKept: false };
  } catch (error) {
    if (!(error instanceof AdminAccountTakenError)) throw error;
    const user = error.alreadyAdmin ? await findUserByEmail(knex, admin.email) : null;
    if (user) return { made: true, userId: user.id, passwordKept: true };
    return { made: false, reason: `ADMIN_EMAIL: ${error.message}` };
  }
}
