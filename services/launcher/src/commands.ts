import type { Knex } from '@sched/db/connection';
import { migrateLatest } from '@sched/db/migrate';
import { ensureServiceAdmin, ensureServiceAdminUser } from '@sched/db/queries/admin';
import { listFailedMail } from '@sched/db/queries/mail-outbox';
import { z } from 'zod';

/** Operator commands; the CLI runs them directly or through a running server's control socket. */
export const CreateAdminInput = z.strictObject({
  email: z.email(),
  password: z.string().min(8, 'must be at least 8 characters').max(1024),
  name: z.string().min(1).max(200).optional(),
});

const MigrateInput = z.strictObject({
  /** ADMIN_EMAIL / ADMIN_PASSWORD: the one-shot migrate step of a deployment bootstraps the admin. */
  admin: z.strictObject({ email: z.email(), password: z.string().min(8) }).optional(),
});

export const commands = {
  async migrate(knex: Knex, input: unknown) {
    const { admin } = parseInput(MigrateInput, input ?? {});
    const applied = await migrateLatest(knex);
    // No API key here: nobody would see it. `create-admin` issues keys.
    const adminUserId = admin ? (await ensureServiceAdminUser(knex, admin)).userId : undefined;
    return adminUserId === undefined ? { applied } : { applied, adminUserId };
  },
  async 'create-admin'(knex: Knex, input: unknown) {
    return ensureServiceAdmin(knex, parseInput(CreateAdminInput, input));
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
