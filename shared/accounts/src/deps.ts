import type { Runtime } from '@sched/runtime/runtime';

/** What the account operations need from the process (both services and the CLI's server have it). */
export type AccountDeps = Pick<Runtime, 'stores' | 'mailer' | 'logger' | 'config'>;
