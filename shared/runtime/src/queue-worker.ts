import type { Logger } from '@sched/kit/logger';

/**
 * The loop of a durable queue's worker (the mail outbox, the calendar writes): every `intervalMs`
 * it claims due entries (claims are leases, so every replica may run it) and hands each to
 * `handle`, batch after batch until nothing is due, so a backlog drains within one tick. One pass
 * at a time per process: a tick during a slow pass joins it. `stop()` drains: no new batch starts,
 * and it resolves when the batch in flight is done. Retries and backoff are the queue's own.
 */
export interface QueueWorkerSpec<Entry> {
  /** Names the queue in the log line of a failed pass. */
  name: string;
  intervalMs: number;
  batchSize: number;
  leaseSeconds: number;
  claim(batchSize: number, leaseSeconds: number): Promise<Entry[]>;
  /** Carries one entry out; true when it is done (counted by `runOnce`). */
  handle(entry: Entry): Promise<boolean>;
  logger: Pick<Logger, 'warn'>;
}

export interface QueueWorker {
  /** One pass now (tests, operators); returns how many entries were done. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startQueueWorker<Entry>(spec: QueueWorkerSpec<Entry>): QueueWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<number> | undefined;

  const pass = async (): Promise<number> => {
    let done = 0;
    while (!stopped) {
      const batch = await spec.claim(spec.batchSize, spec.leaseSeconds);
      // In claim order: a queue that orders its entries (a booking's create before its move) keeps it.
      for (const entry of batch) if (await spec.handle(entry)) done++;
      if (batch.length < spec.batchSize) break;
    }
    return done;
  };

  const runOnce = (): Promise<number> => {
    inFlight ??= pass()
      .catch((error: unknown) => {
        spec.logger.warn({ err: error }, `${spec.name} pass failed; retrying on the next tick`);
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
    }, spec.intervalMs);
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
