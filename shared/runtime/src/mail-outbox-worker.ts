import { claimDueMail } from '@sched/db/queries/mail-outbox';
import {
  DEFAULT_MAIL_RETRY,
  deliverQueuedMail,
  type MailDeps,
  type MailRetryPolicy,
} from './mail-delivery.ts';

/**
 * The outbox retry worker: every `intervalMs` it claims due unsent messages (those whose send after
 * commit failed, or whose process died before sending) and sends them, with exponential backoff
 * and a bounded number of attempts (`MailRetryPolicy`; then the message is marked failed and
 * logged as an error). Claims are leases (`claimDueMail`), so several replicas can run it.
 * `stop()` drains: no new batch starts, and it resolves when the batch in flight is done.
 */
export interface OutboxWorkerOptions {
  intervalMs?: number;
  batchSize?: number;
  /** How long a claimed message is left alone by other workers while this one sends it. */
  leaseSeconds?: number;
  policy?: MailRetryPolicy;
}

export interface OutboxWorker {
  /** One pass now (tests, operators); returns how many messages were sent. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export const OUTBOX_DEFAULTS = { intervalMs: 15_000, batchSize: 20, leaseSeconds: 300 } as const;

export function startOutboxWorker(deps: MailDeps, options: OutboxWorkerOptions = {}): OutboxWorker {
  const intervalMs = options.intervalMs ?? OUTBOX_DEFAULTS.intervalMs;
  const batchSize = options.batchSize ?? OUTBOX_DEFAULTS.batchSize;
  const leaseSeconds = options.leaseSeconds ?? OUTBOX_DEFAULTS.leaseSeconds;
  const policy = options.policy ?? DEFAULT_MAIL_RETRY;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<number> | undefined;

  const pass = async (): Promise<number> => {
    let sent = 0;
    // Batches until nothing is due (or we are told to stop), so a backlog drains within one tick.
    while (!stopped) {
      const batch = await claimDueMail(deps.stores.db.knex, batchSize, leaseSeconds);
      for (const entry of batch) if (await deliverQueuedMail(deps, entry, policy)) sent++;
      if (batch.length < batchSize) break;
    }
    return sent;
  };

  const runOnce = (): Promise<number> => {
    // One pass at a time per process: a tick during a slow pass joins it instead of overlapping.
    inFlight ??= pass()
      .catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'mail outbox pass failed; retrying on the next tick');
        return 0;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void runOnce().then(schedule);
    }, intervalMs);
    timer.unref();
  };
  schedule();

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}
