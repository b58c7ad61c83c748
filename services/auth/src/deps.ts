import type { Runtime } from '@sched/runtime/runtime';
import type Provider from 'oidc-provider';
import type { CsrfOptions } from './http/csrf.ts';
import type { FindAccount } from './provider/account.ts';
import type { ClientDirectory, ClientLoader } from './provider/clients.ts';

/** What the endpoints and pages of the authorization server work with. */
export interface AuthDeps {
  runtime: Runtime;
  provider: Provider;
  /** The issuer identifier: APP_URL. */
  issuer: string;
  clients: ClientDirectory;
  /** `clients.load`: the request's client, resolved once per request. */
  loadClient: ClientLoader;
  /** oidc-provider's `findAccount` (one instance: its minute-long memory of users is shared). */
  findAccount: FindAccount;
  csrf: CsrfOptions;
}
