// Shared set-up for the authorization-server tests: the running system, a signed-up user and the
// OAuth clients a file names, made once per file before its tests.
import type { TokenStore } from '@sched/db/token-store/types';
import type { TestFn } from 'ava';
import {
  createTestClient,
  createTestUser,
  type TestClient,
  type TestClientOptions,
  type TestUser,
} from '../support/oauth.ts';
import { later, readThrough } from '../support/read-through.ts';
import { setUpTestSystem, type TestSystem } from '../support/system.ts';

const userKeys = { id: true, email: true, password: true, apiKey: true, user: true } as const;
const clientKeys = { client: true, secret: true, redirectUri: true } as const;

/**
 * The system (with `env`), one user and `clients` (made in the order given), ready before the
 * file's tests.
 * `user` and each client read through to what the hook made; `store()` is the system's token store.
 */
export function setUpOAuthSystem<Context, Name extends string = never>(
  test: TestFn<Context>,
  clients: Record<Name, TestClientOptions> = {} as Record<Name, TestClientOptions>,
  env?: Parameters<typeof setUpTestSystem>[1],
): { system: TestSystem; store: () => TokenStore; user: TestUser; clients: Record<Name, TestClient> } {
  const system = setUpTestSystem(test, env);
  const user = later<TestUser>('the test user');
  const made = new Map<Name, TestClient>();
  // Serial, like the system's own hook, so hooks declared after this call see the user and clients.
  test.serial.before(async () => {
    const knex = system.stores.db.knex;
    user.set(await createTestUser(knex));
    for (const [name, options] of Object.entries(clients) as Array<[Name, TestClientOptions]>) {
      made.set(name, await createTestClient(knex, options));
    }
  });
  const views = {} as Record<Name, TestClient>;
  for (const name of Object.keys(clients) as Name[]) {
    views[name] = readThrough(() => {
      const client = made.get(name);
      if (!client)
        throw new Error(`the test client ${name} is not ready: its test.before hook has not run or failed`);
      return client;
    }, clientKeys);
  }
  return {
    system,
    store: () => system.stores.tokenStore,
    user: readThrough(user.get, userKeys),
    clients: views,
  };
}
