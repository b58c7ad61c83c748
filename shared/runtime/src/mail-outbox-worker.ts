import { claimDueMail } from '@sched/db/queries/mail-outbox';
import {
  DEFAULT_MAIL_RETRY,
  deliverQueuedMail,
  type MailDeps,
  type MailRetryPolicy,
} from './mail-delivery.ts';
import { type QueueWorker, startQueueWorker } from './queue-worker.ts';

/**
 * The outbox retry worker: every `intervalMs` it claims due unsent messages (those whose send after
 * commit failed, or whose process died before sending) and sends them, with exponential backoff
 * and a bounded number of attempts (`MailRetryPolicy`; then the message is marked failed and
 * logged as an error). Claims are leases (`claimDueMail`), so several replicas can run it; the
 * loop is queue-worker.ts's.
 */
export interface OutboxWorkerOptions {
  intervalMs?: number;
  batchSize?: number;
  /** How long a claimed message is left alone by other workers while this one sends it. */
  leaseSeconds?: number;
  policy?: MailRetryPolicy;
}

/** `runOnce()` returns how many messages were sent. */
export type OutboxWorker = QueueWorker;

export const OUTBOX_DEFAULTS = { intervalMs: 15_000, batchSize: 20, leaseSeconds: 300 } as const;

export function startOutboxWorker(deps: MailDeps, options: OutboxWorkerOptions = {}): OutboxWorker {
  const policy = options.policy ?? DEFAULT_MAIL_RETRY;
  return startQueueWorker({
    name: 'mail outbox',
    intervalMs: options.intervalMs ?? OUTBOX_DEFAULTS.intervalMs,
    batchSize: options.batchSize ?? OUTBOX_DEFAULTS.batchSize,
    leaseSeconds: options.leaseSeconds ?? OUTBOX_DEFAULTS.leaseSeconds,
    claim: (batchSize, leaseSeconds) => claimDueMail(deps.stores.db.knex, batchSize, leaseSeconds),
    handle: (entry) => deliverQueuedMail(deps, entry, policy),
    logger: deps.logger,
  });
}
