// The test-data factories: every row a test makes directly in the database (users, API keys,
// organizations, teams, memberships, custom roles, OAuth clients) is made here, and nowhere else.
// Each returns what tests need; users always come back as one shape, `TestUser`.
import { randomBytes } from 'node:crypto';
import { createApiKey } from '@sched/db/queries/api-keys';
import {
  type ClientReviewStatus,
  type ClientType,
  createOAuthClient,
  type OAuthClient,
} from '@sched/db/queries/oauth-clients';
import {
  createUser,
  mapUser,
  USER_COLUMNS,
  type User,
  type UserRow,
  type Weekday,
} from '@sched/db/queries/users';
import { hashPassword } from '@sched/kit/passwords';
import type { Knex } from 'knex';

let sequence = 0;
/** A tag no other call (in this process or another test process) returns. */
export const uniqueTag = (): string =>
  `${Date.now().toString(36)}${(++sequence).toString(36)}${process.pid.toString(36)}${randomBytes(3).toString('hex')}`;

// ---------------------------------------------------------------------------------------------
// Users

/** A user made by a factory: its id and e-mail, its password and API key in plain, its row. */
export interface TestUser {
  id: number;
  email: string;
  /** The plain password ('' when made with `password: null`). */
  password: string;
  /** A fresh API key, usable as a bearer token ('' when made with `withApiKey(s): false`). */
  apiKey: string;
  /** The users row as the application reads it. */
  user: User;
}

export interface UserOptions {
  email?: string;
  name?: string;
  username?: string | null;
  /** The plain password; `null` for none (saves the scrypt hash). Default: a generated one. */
  password?: string | null;
  serviceAdmin?: boolean;
  timeZone?: string;
  weekStart?: Weekday;
  /** Make an API key (default true). */
  withApiKey?: boolean;
  /** A managed user of this OAuth client (deprecated family), its address verified as the API makes them. */
  managedByClientId?: string;
}

/**
 * One user, made like a signed-up, e-mail-verified, onboarded account (default schedule
 * included, through the application's own `createUser`), with a password and an API key.
 */
export async function insertUser(knex: Knex, options: UserOptions = {}): Promise<TestUser> {
  const tag = uniqueTag();
  const password = options.password === undefined ? `pw-${tag}-long` : options.password;
  const user = await createUser(knex, {
    email: options.email ?? `user-${tag}@example.com`,
    password,
    name: options.name ?? 'Test User',
    username: options.username ?? null,
    emailVerifiedAt: new Date(),
    onboardingStep: 'complete',
    isServiceAdmin: options.serviceAdmin ?? false,
    ...(options.managedByClientId ? { managedByClientId: options.managedByClientId } : {}),
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    ...(options.weekStart ? { weekStart: options.weekStart } : {}),
  });
  const apiKey = options.withApiKey === false ? '' : await insertApiKey(knex, user.id);
  return { id: user.id, email: user.email, password: password ?? '', apiKey, user };
}

export interface UsersOptions {
  serviceAdmin?: boolean;
  /** One plain password for all of them (hashed once); default none. */
  password?: string | null;
  /** Make an API key for each (default true). */
  withApiKeys?: boolean;
}

/**
 * Many users at once, straight into the table in one statement (verified and onboarded, but no
 * default schedule and by default no password): fast enough to make hundreds for a matrix.
 */
export async function insertUsers(
  knex: Knex,
  count: number,
  options: UsersOptions = {},
): Promise<TestUser[]> {
  if (count === 0) return [];
  const password = options.password ?? null;
  const passwordHash = password === null ? null : await hashPassword(password);
  const rows = Array.from({ length: count }, () => {
    const tag = uniqueTag();
    return {
      email: `user-${tag}@example.test`,
      username: `user-${tag}`,
      name: `User ${tag}`,
      password_hash: passwordHash,
      email_verified_at: new Date(),
      onboarding_step: 'complete',
      is_service_admin: options.serviceAdmin ?? false,
    };
  });
  const inserted = (await knex('users').insert(rows).returning(USER_COLUMNS)) as UserRow[];
  const users: TestUser[] = [];
  for (const row of inserted) {
    const user = mapUser(row);
    const apiKey = options.withApiKeys === false ? '' : await insertApiKey(knex, user.id);
    users.push({ id: user.id, email: user.email, password: password ?? '', apiKey, user });
  }
  return users;
}

/** A fresh API key of the user; returns the plain key. */
export async function insertApiKey(knex: Knex, userId: number): Promise<string> {
  return (await createApiKey(knex, userId)).plain;
}

// ---------------------------------------------------------------------------------------------
// Organizations, teams, memberships, roles

export async function insertOrganization(
  knex: Knex,
  options: { pbacEnabled?: boolean; name?: string; slug?: string } = {},
): Promise<number> {
  const tag = uniqueTag();
  const [row] = (await knex('organizations')
    .insert({
      name: options.name ?? `Org ${tag}`,
      slug: options.slug ?? `org-${tag}`,
      pbac_enabled: options.pbacEnabled ?? false,
    })
    .returning('id')) as Array<{ id: number }>;
  return Number(row!.id);
}

/** A team of the organization (or a standalone team with `null`); returns its id. */
export async function insertTeam(
  knex: Knex,
  organizationId: number | null = null,
  options: { name?: string; slug?: string } = {},
): Promise<number> {
  const tag = uniqueTag();
  const [row] = (await knex('teams')
    .insert({
      name: options.name ?? `Team ${tag}`,
      slug: options.slug ?? `team-${tag}`,
      organization_id: organizationId,
    })
    .returning('id')) as Array<{ id: number }>;
  return Number(row!.id);
}

export type RoleName = 'OWNER' | 'ADMIN' | 'MEMBER';

export interface MembershipRow {
  userId: number;
  role: RoleName;
  /** Default true. */
  accepted?: boolean;
  teamId?: number;
  organizationId?: number;
  customRoleId?: string | null;
}

/** Memberships straight into the table; returns their ids in order. */
export async function insertMemberships(knex: Knex, rows: readonly MembershipRow[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = (await knex('memberships')
    .insert(
      rows.map((row) => ({
        user_id: row.userId,
        team_id: row.teamId ?? null,
        organization_id: row.organizationId ?? null,
        role: row.role,
        accepted: row.accepted ?? true,
        custom_role_id: row.customRoleId ?? null,
      })),
    )
    .returning('id')) as Array<{ id: number }>;
  return inserted.map((row) => Number(row.id));
}

export async function insertMembership(knex: Knex, row: MembershipRow): Promise<number> {
  return (await insertMemberships(knex, [row]))[0]!;
}

/** A custom role of the organization with these permissions; returns its id. */
export async function insertCustomRole(
  knex: Knex,
  organizationId: number,
  permissions: readonly string[],
): Promise<string> {
  const [row] = (await knex('roles')
    .insert({ organization_id: organizationId, name: `Role ${uniqueTag()}`, type: 'CUSTOM' })
    .returning('id')) as Array<{ id: string }>;
  if (permissions.length > 0) {
    await knex('role_permissions').insert(
      permissions.map((permission) => ({ role_id: row!.id, permission })),
    );
  }
  return row!.id;
}

// ---------------------------------------------------------------------------------------------
// OAuth clients

export interface TestClient {
  client: OAuthClient;
  /** The plain secret of a confidential client (null for public clients). */
  secret: string | null;
  redirectUri: string;
}

export interface TestClientOptions {
  type?: ClientType;
  scopes?: string[];
  redirectUris?: string[];
  status?: ClientReviewStatus;
  name?: string;
  logo?: string | null;
  websiteUrl?: string | null;
  /** Default: a new user. */
  ownerUserId?: number;
  /** The organization the client belongs to (default none). */
  organizationId?: number;
}

/** An APPROVED confidential client with PROFILE_READ and BOOKING_READ unless told otherwise. */
export async function insertClient(knex: Knex, options: TestClientOptions = {}): Promise<TestClient> {
  const ownerUserId = options.ownerUserId ?? (await insertUser(knex)).id;
  const redirectUris = options.redirectUris ?? [`https://app-${uniqueTag()}.example.com/callback`];
  const status = options.status ?? 'APPROVED';
  const { client, secret } = await createOAuthClient(knex, {
    ownerUserId,
    name: options.name ?? 'Test App',
    redirectUris,
    scopes: options.scopes ?? ['PROFILE_READ', 'BOOKING_READ'],
    clientType: options.type ?? 'confidential',
    logo: options.logo ?? null,
    websiteUrl: options.websiteUrl ?? null,
    reviewStatus: status,
    rejectionReason: status === 'REJECTED' ? 'Not a real application' : null,
    organizationId: options.organizationId ?? null,
  });
  return { client, secret: secret?.plain ?? null, redirectUri: redirectUris[0]! };
}
