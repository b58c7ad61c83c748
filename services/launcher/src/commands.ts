import type { Knex } from '@sched/db/connection';
import { migrateLatest } from '@sched/db/migrate';
import { ensureServiceAdmin, ensureServiceAdminUser } from '@sched/db/queries/admin';
import { listFailedMail } from '@sched/db/queries/mail-outbox';
import { findUserByEmail, userHasPassword, verifyUserPassword } from '@sched/db/queries/users';
import { createPasswordResetLink } from '@sched/accounts/password-reset';
import { rotateSigningKeys, type SigningKeySettings } from '@sched/auth/keys/signing-keys';
import type { VersionBumper } from '@sched/db/versions';
import { z } from 'zod';

/** Operator commands; the CLI runs them directly or through a running server's control socket. */
export const CreateAdminInput = z.strictObject({
  email: z.email(),
  password: z.string().min(8, 'must be at least 8 characters').max(1024),
  name: z.string().min(1).max(200).optional(),
});

const ResetPasswordInput = z.strictObject({
  email: z.email(),
  /** APP_URL of the CLI's environment (the same as the server's): the link's origin. */
  appUrl: z.url(),
});

const MigrateInput = z.strictObject({
  /** ADMIN_EMAIL / ADMIN_PASSWORD: the one-shot migrate step of a deployment bootstraps the admin. */
  admin: z.strictObject({ email: z.email(), password: z.string().min(8) }).optional(),
});

/**
 * What a command may need besides the database and its input, from the process that runs it (the
 * CLI, or the running server behind the control socket): never sent over the socket.
 */
export interface CommandContext {
  /** How signing keys are encrypted and which algorithm new ones use (rotate-keys). */
  signingKeys: SigningKeySettings;
  /** The token store, to tell running auth processes that the keys changed; none when no server runs. */
  versions: VersionBumper | undefined;
}

export const commands = {
  async migrate(knex: Knex, input: unknown) {
    const { admin } = parseInput(MigrateInput, input ?? {});
    const applied = await migrateLatest(knex);
    // No API key here: nobody would see it. `create-admin` issues keys.
    const adminUserId = admin ? (await ensureServiceAdminUser(knex, admin)).userId : undefined;
    return adminUserId === undefined ? { applied } : { applied, adminUserId };
  },
  /**
   * Idempotent on the e-mail: a second call with the same password prints a fresh key for the same
   * user. An existing account whose password is another one is refused (non-zero exit): the
   * command never exits 0 while keeping a password other than the one given, and never hands
   * an account someone else set up (perhaps with this address) to whoever runs it; the operator
   * resets that account's password first (`reset-password`). An account without a password (an
   * invited or managed one) gets the given one.
   */
  async 'create-admin'(knex: Knex, input: unknown) {
    const admin = parseInput(CreateAdminInput, input);
    const existing = await findUserByEmail(knex, admin.email);
    if (
      existing &&
      (await userHasPassword(knex, existing.id)) &&
      !(await verifyUserPassword(knex, admin.email, admin.password))
    ) {
      throw new CommandInputError(
        `an account with the e-mail ${admin.email} exists with another password; run reset-password --email ${admin.email} and set the password through its link, then run create-admin again`,
      );
    }
    return ensureServiceAdmin(knex, admin);
  },
  /** A one-time password-reset URL (30 minutes; older links stop working) for the account. */
  async 'reset-password'(knex: Knex, input: unknown) {
    const { email, appUrl } = parseInput(ResetPasswordInput, input);
    const user = await findUserByEmail(knex, email);
    if (!user) throw new CommandInputError(`no account with the e-mail ${email}`);
    return createPasswordResetLink(knex, appUrl, user.id);
  },
  /**
   * A new active ID-token signing key; the previous one stops signing and stays in the JWKS until
   * the ID tokens it signed have expired (then the next rotation or start-up deletes it).
   */
  async 'rotate-keys'(knex: Knex, input: unknown, context?: CommandContext) {
    parseInput(z.strictObject({}), input ?? {});
    if (!context) throw new Error('rotate-keys needs the signing-key settings of the process');
    return rotateSigningKeys(knex, context.signingKeys, context.versions);
  },
  /** E-mails the outbox worker gave up on (out of attempts), newest first, without their bodies. */
  async 'mail-failures'(knex: Knex, input: unknown) {
    parseInput(z.strictObject({}), input ?? {});
    return (await listFailedMail(knex)).map((m) => ({
      id: m.id,
      recipient: m.recipient,
      subject: m.subject,
      attempts: m.attempts,
      lastError: m.lastError,
      createdAt: m.createdAt,
    }));
  },
} as const;

function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new CommandInputError(`--${issue.path.map(String).join('.') || 'input'} ${issue.message}`);
}

export type CommandName = keyof typeof commands;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commands, name);
}

export class CommandInputError extends Error {
  override name = 'CommandInputError';
}
