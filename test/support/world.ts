// The world a test file runs in: the whole system (auth + api on one origin, its own database and
// Redis prefix) sending mail to a local SMTP server, a `call` client on it, a service
// administrator, an ordinary user and the OAuth clients the file names. `buildScene` seeds an
// organization with a team and members on top.
import type { TokenStore } from '@sched/db/token-store/types';
import type { TestFn } from 'ava';
import type { Knex } from 'knex';
import {
  insertClient,
  insertCustomRole,
  insertMembership,
  insertOrganization,
  insertTeam,
  insertUser,
  insertUsers,
  type RoleName,
  type TestClient,
  type TestClientOptions,
  type TestUser,
} from './factories.ts';
import { apiClient, type Call } from './http.ts';
import { setUpSmtpServer, startSmtpServer, type TestSmtpServer } from './mail.ts';
import { later, readThrough } from './read-through.ts';
import { setUpTestSystem, startTestSystem, type TestSystem } from './system.ts';

type Env = Record<string, string>;

export interface WorldOptions<Name extends string = never> {
  /** Added to the system's configuration (may override SMTP_URL). A function runs in the hook. */
  env?: Env | (() => Env | Promise<Env>);
  /** OAuth clients to make, by name (see `insertClient`: each owned by a new user unless told otherwise). */
  clients?: Record<Name, TestClientOptions>;
}

export interface World<Name extends string = never> {
  system: TestSystem;
  /** The SMTP server the system sends to (read it with `waitForMail`). */
  smtp: TestSmtpServer;
  /** A client of the system: `call('GET', '/v2/me', { token: world.user.apiKey })`. */
  call: Call;
  /** The system's database. */
  knex(): Knex;
  /** The system's token store. */
  store(): TokenStore;
  /** A service administrator. */
  admin: TestUser;
  /** An ordinary user with no memberships. */
  user: TestUser;
  clients: Record<Name, TestClient>;
  /** Stops the system and the SMTP server (once; later calls do nothing). */
  close(): Promise<void>;
}

interface Seed<Name extends string> {
  admin: TestUser;
  user: TestUser;
  clients: Map<Name, TestClient>;
}

async function seed<Name extends string>(
  knex: Knex,
  clients: Record<Name, TestClientOptions>,
): Promise<Seed<Name>> {
  const admin = await insertUser(knex, { serviceAdmin: true, name: 'Service Admin' });
  const user = await insertUser(knex);
  const made = new Map<Name, TestClient>();
  for (const [name, options] of Object.entries(clients) as Array<[Name, TestClientOptions]>) {
    made.set(name, await insertClient(knex, options));
  }
  return { admin, user, clients: made };
}

const userKeys = { id: true, email: true, password: true, apiKey: true, user: true } as const;
const clientKeys = { client: true, secret: true, redirectUri: true } as const;

function worldOf<Name extends string>(
  system: TestSystem,
  smtp: TestSmtpServer,
  seeded: () => Seed<Name>,
  names: Name[],
): World<Name> {
  const clients = {} as Record<Name, TestClient>;
  for (const name of names) {
    clients[name] = readThrough(() => {
      const client = seeded().clients.get(name);
      if (!client) throw new Error(`the test client ${name} is not ready`);
      return client;
    }, clientKeys);
  }
  let closing: Promise<void> | undefined;
  return {
    system,
    smtp,
    call: apiClient(() => system.url),
    knex: () => system.stores.db.knex,
    store: () => system.stores.tokenStore,
    admin: readThrough(() => seeded().admin, userKeys),
    user: readThrough(() => seeded().user, userKeys),
    clients,
    close: () => {
      closing ??= (async () => {
        await system.close();
        await smtp.close();
      })();
      return closing;
    },
  };
}

const resolveEnv = async (env: WorldOptions<string>['env']): Promise<Env> =>
  typeof env === 'function' ? await env() : (env ?? {});

/** A world started now; the caller closes it (`world.close()`). */
export async function startWorld<Name extends string = never>(
  options: WorldOptions<Name> = {},
): Promise<World<Name>> {
  const smtp = await startSmtpServer();
  const system = await startTestSystem({ SMTP_URL: smtp.url, ...(await resolveEnv(options.env)) });
  const clients = options.clients ?? ({} as Record<Name, TestClientOptions>);
  const seeded = await seed(system.stores.db.knex, clients);
  return worldOf(system, smtp, () => seeded, Object.keys(clients) as Name[]);
}

/**
 * The world for the whole test file: started in serial `test.before` hooks (so before hooks
 * declared after this call find it ready), closed in `test.after.always`. Returned at once, to
 * name at module level (`const { system, call, knex } = setUpWorld(test)`); its parts read through
 * to what the hooks made.
 */
export function setUpWorld<Context, Name extends string = never>(
  test: TestFn<Context>,
  options: WorldOptions<Name> = {},
): World<Name> {
  const smtp = setUpSmtpServer(test);
  const system = setUpTestSystem(test, async () => ({
    SMTP_URL: smtp.url,
    ...(await resolveEnv(options.env)),
  }));
  const clients = options.clients ?? ({} as Record<Name, TestClientOptions>);
  const seeded = later<Seed<Name>>("the world's users and clients");
  test.serial.before(async () => {
    seeded.set(await seed(system.stores.db.knex, clients));
  });
  return worldOf(system, smtp, seeded.get, Object.keys(clients) as Name[]);
}

// ---------------------------------------------------------------------------------------------
// Scenes: an organization with one team and members

export interface MemberSpec {
  org?: RoleName;
  team?: RoleName;
  /** Accepted (default true) for both memberships. */
  accepted?: boolean;
  /** Permissions of a custom role put on each of the member's memberships. */
  permissions?: readonly string[];
}

export interface Scene<K extends string> {
  orgId: number;
  teamId: number;
  users: Record<K, TestUser>;
  /** Membership ids by member: org and team. */
  orgMembership: Partial<Record<K, number>>;
  teamMembership: Partial<Record<K, number>>;
}

export interface SceneOptions {
  pbacEnabled?: boolean;
  /** One password for all the members (to sign in with); default none, which is faster. */
  password?: string;
}

/** An organization (PBAC on or off) with one team and the given members, straight into the tables. */
export async function buildScene<K extends string>(
  knex: Knex,
  members: Record<K, MemberSpec>,
  options: SceneOptions = {},
): Promise<Scene<K>> {
  const orgId = await insertOrganization(knex, { pbacEnabled: options.pbacEnabled ?? false });
  const teamId = await insertTeam(knex, orgId);
  const names = Object.keys(members) as K[];
  const created = await insertUsers(knex, names.length, { password: options.password ?? null });
  const users = {} as Record<K, TestUser>;
  const orgMembership: Partial<Record<K, number>> = {};
  const teamMembership: Partial<Record<K, number>> = {};
  for (const [i, name] of names.entries()) {
    users[name] = created[i]!;
    const spec = members[name];
    const customRoleId = spec.permissions ? await insertCustomRole(knex, orgId, spec.permissions) : null;
    const accepted = spec.accepted ?? true;
    if (spec.org) {
      orgMembership[name] = await insertMembership(knex, {
        userId: users[name].id,
        organizationId: orgId,
        role: spec.org,
        accepted,
        customRoleId,
      });
    }
    if (spec.team) {
      teamMembership[name] = await insertMembership(knex, {
        userId: users[name].id,
        teamId,
        role: spec.team,
        accepted,
        customRoleId,
      });
    }
  }
  return { orgId, teamId, users, orgMembership, teamMembership };
}
