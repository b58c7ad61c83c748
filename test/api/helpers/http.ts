import type { TestFn } from 'ava';
import { apiClient } from '../../support/http.ts';
import { setUpTestSystem } from '../../support/system.ts';

// Moved to test/support/http.ts; this re-export goes away.
export {
  type ApiResponse,
  apiClient,
  type Call,
  type CallOptions,
  type Json,
  pool,
} from '../../support/http.ts';

/** The running system for an API test file (see setUpTestSystem), a `call` client on it, its knex. */
export function setUpApiSystem<Context>(test: TestFn<Context>, env?: Parameters<typeof setUpTestSystem>[1]) {
  const system = setUpTestSystem(test, env);
  return { system, call: apiClient(() => system.url), knex: () => system.stores.db.knex };
}
