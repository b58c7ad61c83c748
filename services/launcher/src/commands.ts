import { disableAccount, enableAccount } from '@sched/accounts/disable';
import { createPasswordResetLink } from '@sched/accounts/password-reset';
import { rotateSigningKeys, type SigningKeySettings } from '@sched/auth/keys/signing-keys';
import { createClient } from '@sched/clients/operations';
import { approve } from '@sched/clients/review';
import type { Actor } from '@sched/clients/rights';
import { createClientBody } from '@sched/clients/schemas';
import type { Knex } from '@sched/db/connection';
import { cliAudit } from '@sched/db/queries/audit-log';
import { AdminAccountTakenError } from '@sched/db/errors';
import { migrateLatest } from '@sched/db/migrate';
import { ensureServiceAdmin } from '@sched/db/queries/admin';
import { listFailedMail } from '@sched/db/queries/mail-outbox';
import { listClientsByReviewStatus } from '@sched/db/queries/oauth-client-management';
import { type OAuthClient, REVIEW_STATUSES } from '@sched/db/queries/oauth-clients';
import { findFirstServiceAdminId, findUserByEmail, findUserDisabledAt } from '@sched/db/queries/users';
import type { VersionBumper } from '@sched/db/versions';
import { AppError } from '@sched/kit/errors';
import type { Runtime } from '@sched/runtime/runtime';
import { z } from 'zod';
import { backupEmbedded } from './backup.ts';
import { bootstrapServiceAdmin } from './bootstrap-admin.ts';
import { CommandInputError } from './command-error.ts';

export { CommandInputError };

/**
 * Operator commands; the CLI runs them directly or through a running server's control socket.
 * Every command that changes something writes its audit event in the change's transaction, with
 * the operator CLI as the actor (`cliAudit`).
 */
export const CreateAdminInput = z.strictObject({
  email: z.email(),
  password: z.string().min(8, 'must be at least 8 characters').max(1024),
  name: z.string().min(1).max(200).optional(),
});

const ResetPasswordInput = z.strictObject({
  email: z.email(),
  /** APP_URL of the CLI's environment: the link's origin unless the process running it has its own. */
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
  /** The process's stores, mailer and settings (client and account operations). */
  runtime?: Runtime;
  /** DATA_DIR of the process (the embedded database's folder and its secrets.json). */
  dataDir?: string;
  /** APP_URL of the process: links the commands print (reset-password). */
  appUrl?: string;
}

const EmailInput = z.strictObject({ email: z.email() });

const CreateClientInput = z.strictObject({
  name: z.string(),
  redirectUris: z.array(z.string()),
  scopes: z.array(z.string()),
  public: z.boolean().optional(),
  approve: z.boolean().optional(),
  /** The owner's e-mail; by default the oldest service administrator. */
  owner: z.email().optional(),
});

/** The CLI's names for the fields of the shared client schema, for one-line errors. */
const CLIENT_FLAGS: Record<string, string> = { redirectUris: 'redirect-uri', scopes: 'scope', name: 'name' };

/** What list-clients prints of a client (one JSON line each, or a table row). */
export interface ListedClient {
  id: string;
  name: string;
  clientType: string;
  reviewStatus: string;
  ownerUserId: number | null;
  organizationId: number | null;
  redirectUris: string[];
  scopes: string[];
  createdAt: string;
}

const listed = (client: OAuthClient): ListedClient => ({
  id: client.id,
  name: client.name,
  clientType: client.clientType,
  reviewStatus: client.reviewStatus,
  ownerUserId: client.ownerUserId,
  organizationId: client.organizationId,
  redirectUris: client.redirectUris,
  scopes: client.scopes,
  createdAt: client.createdAt.toISOString(),
});

/**
 * The CLI acts with the rights of the oldest service administrator (the clients' owner, the
 * review's reviewer); its audit events name the operator CLI, not that administrator.
 */
async function operatorActor(knex: Knex, command: CommandName): Promise<Actor> {
  const userId = await findFirstServiceAdminId(knex);
  if (userId === null)
    throw new CommandInputError('there is no service administrator yet: run create-admin first');
  return { userId, serviceAdmin: true, audit: cliAudit(command) };
}

async function refuseDisabled(knex: Knex, email: string): Promise<void> {
  const user = await findUserByEmail(knex, email);
  if (user && (await findUserDisabledAt(knex, user.id)) !== null)
    throw new CommandInputError(
      `the account with the e-mail ${email} is disabled; run enable-user --email ${email} first`,
    );
}

async function accountByEmail(knex: Knex, email: string) {
  const user = await findUserByEmail(knex, email);
  if (!user) throw new CommandInputError(`no account with the e-mail ${email}`);
  return user;
}

/** The shared operations' refusals (400, 404, 409...) are the operator's to fix: one line, exit 1. */
async function asCommandError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.status < 500) throw new CommandInputError(error.message);
    if (error instanceof AdminAccountTakenError) throw new CommandInputError(error.message);
    throw error;
  }
}

export const commands = {
  /**
   * With ADMIN_EMAIL / ADMIN_PASSWORD, the deployment's one-shot step also bootstraps the service
   * administrator, as start-up does, and succeeds whatever that finds (bootstrap-admin.ts): the
   * services wait for this step, so a changed admin password or an address someone else took
   * must not keep them down. An administrator not made is a `warning` (the CLI prints it on stderr).
   */
  async migrate(knex: Knex, input: unknown) {
    const { admin } = parseInput(MigrateInput, input ?? {});
    const applied = await migrateLatest(knex);
    if (!admin) return { applied };
    // No API key here: nobody would see it. `create-admin` issues keys.
    const outcome = await bootstrapServiceAdmin(knex, admin, cliAudit('migrate'));
    return outcome.made
      ? { applied, adminUserId: outcome.userId }
      : { applied, warning: `service administrator not made: ${outcome.reason}` };
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
    // A key for a disabled account would print as a success and answer 401 everywhere.
    await refuseDisabled(knex, admin.email);
    return asCommandError(() => ensureServiceAdmin(knex, admin, cliAudit('create-admin')));
  },
  /**
   * A one-time password-reset URL (30 minutes; older links stop working) for the account, on the
   * APP_URL of the process that runs the command: the running server's when it goes through its
   * control socket (the CLI's environment may lack the server's PORT or APP_URL).
   */
  async 'reset-password'(knex: Knex, input: unknown, context?: CommandContext) {
    const { email, appUrl } = parseInput(ResetPasswordInput, input);
    const user = await findUserByEmail(knex, email);
    if (!user) throw new CommandInputError(`no account with the e-mail ${email}`);
    return createPasswordResetLink(knex, context?.appUrl ?? appUrl, user.id, cliAudit('reset-password'));
  },
  /**
   * A new active ID-token signing key; the previous one stops signing and stays in the JWKS until
   * the ID tokens it signed have expired (then the next rotation or start-up deletes it).
   */
  async 'rotate-keys'(knex: Knex, input: unknown, context?: CommandContext) {
    parseInput(z.strictObject({}), input ?? {});
    if (!context) throw new Error('rotate-keys needs the signing-key settings of the process');
    return rotateSigningKeys(knex, context.signingKeys, context.versions, cliAudit('rotate-keys'));
  },
  /**
   * Registers an OAuth client owned by `--owner` (default: the oldest service administrator), with
   * the same rules as the API (redirect URIs, registrable scopes; PENDING review); `--approve`
   * approves it at once. The secret of a confidential client is in the answer, and only there.
   */
  async 'create-client'(knex: Knex, input: unknown, context?: CommandContext) {
    const args = parseInput(CreateClientInput, input);
    const runtime = requireRuntime(context);
    const body = createClientBody.safeParse({
      name: args.name,
      redirectUris: args.redirectUris,
      scopes: args.scopes,
      clientType: args.public ? 'public' : 'confidential',
    });
    if (!body.success) {
      const issue = body.error.issues[0]!;
      const field = String(issue.path[0] ?? 'input');
      const index = typeof issue.path[1] === 'number' ? ` (${issue.path[1] + 1})` : '';
      throw new CommandInputError(`--${CLIENT_FLAGS[field] ?? field}${index}: ${issue.message}`);
    }
    const actor: Actor = args.owner
      ? {
          userId: (await accountByEmail(knex, args.owner)).id,
          serviceAdmin: true,
          audit: cliAudit('create-client'),
        }
      : await operatorActor(knex, 'create-client');
    return asCommandError(async () => {
      const created = await createClient(runtime, actor, body.data);
      let client = created.client;
      if (args.approve) client = await approve(runtime, actor, client.id);
      return {
        id: client.id,
        ...(created.secret ? { secret: created.secret.plain } : {}),
        clientType: client.clientType,
        reviewStatus: client.reviewStatus,
        name: client.name,
        redirectUris: client.redirectUris,
        scopes: client.scopes,
      };
    });
  },
  /** Every OAuth client (or those of one review status), oldest first. */
  async 'list-clients'(knex: Knex, input: unknown) {
    const { status } = parseInput(
      z.strictObject({ status: z.enum(REVIEW_STATUSES).optional() }),
      input ?? {},
    );
    const all: ListedClient[] = [];
    const take = 500;
    for (let skip = 0; ; skip += take) {
      const page = await listClientsByReviewStatus(knex, { ...(status ? { status } : {}), skip, take });
      all.push(...page.map(listed));
      if (page.length < take) return all;
    }
  },
  /** PENDING -> APPROVED, as a service administrator's review (audited, the owner is e-mailed). */
  async 'approve-client'(knex: Knex, input: unknown, context?: CommandContext) {
    const { id } = parseInput(z.strictObject({ id: z.string().min(1) }), input);
    const runtime = requireRuntime(context);
    const actor = await operatorActor(knex, 'approve-client');
    const client = await asCommandError(() => approve(runtime, actor, id));
    return { id: client.id, reviewStatus: client.reviewStatus };
  },
  /** Disables an account: no sign-in, and its sessions, tokens and API keys end at once. */
  async 'disable-user'(knex: Knex, input: unknown, context?: CommandContext) {
    const { email } = parseInput(EmailInput, input);
    const runtime = requireRuntime(context);
    const user = await accountByEmail(knex, email);
    const done = await disableAccount(runtime, user.id, cliAudit('disable-user'));
    if (!done) throw new CommandInputError(`no account with the e-mail ${email}`);
    return {
      userId: user.id,
      email: user.email,
      disabledAt: done.disabledAt.toISOString(),
      changed: done.changed,
      ended: done.ended,
    };
  },
  /** Enables a disabled account again (what was ended stays ended). */
  async 'enable-user'(knex: Knex, input: unknown, context?: CommandContext) {
    const { email } = parseInput(EmailInput, input);
    const runtime = requireRuntime(context);
    const user = await accountByEmail(knex, email);
    const done = await enableAccount(runtime, user.id, cliAudit('enable-user'));
    if (!done) throw new CommandInputError(`no account with the e-mail ${email}`);
    return { userId: user.id, email: user.email, enabled: true, changed: done.changed };
  },
  /** A backup of the embedded database (and its cookie keys) into `to` (an absolute path). */
  async backup(knex: Knex, input: unknown, context?: CommandContext) {
    const { to } = parseInput(z.strictObject({ to: z.string().min(1) }), input);
    if (context?.dataDir === undefined) throw new Error('backup needs the data folder of the process');
    return backupEmbedded(knex, context.dataDir, to);
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

function requireRuntime(context: CommandContext | undefined): Runtime {
  if (!context?.runtime) throw new Error('this command needs the runtime of the process');
  return context.runtime;
}

function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  // An option left out reads "is required", not the schema's "expected string, received undefined".
  const given = issue.path.reduce<unknown>(
    (value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key],
    input,
  );
  const message = issue.code === 'invalid_type' && given === undefined ? 'is required' : issue.message;
  throw new CommandInputError(`--${issue.path.map(String).join('.') || 'input'} ${message}`);
}

export type CommandName = keyof typeof commands;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commands, name);
}
