import { performCalendarWrite } from '@sched/calendars/writes';
import {
  type CalendarWrite,
  claimDueCalendarWrites,
  markCalendarWriteDone,
  markCalendarWriteFailed,
} from '@sched/db/queries/calendar-writes';
import { countCalendarWrite } from '@sched/kit/metrics';
import { type MailRetryPolicy, retryDelaySeconds } from './mail-delivery.ts';
import { type QueueWorker, startQueueWorker } from './queue-worker.ts';
import type { Runtime } from './runtime-types.ts';

/**
 * The calendar write worker (docs/calendars.md "For operators"): like the mail outbox worker, every
 * `intervalMs` it claims due writes (leases, so replicas can all run it) and carries them out, with
 * exponential backoff and a bounded number of attempts. A booking never waits for it: the booking's
 * transaction only queues the write, and a failing calendar only delays its own event.
 */
export interface CalendarWriteWorkerOptions {
  intervalMs?: number;
  batchSize?: number;
  leaseSeconds?: number;
  policy?: MailRetryPolicy;
}

/** `runOnce()` returns how many writes were done. */
export type CalendarWriteWorker = QueueWorker;

/** 10 attempts over about 17 hours: a calendar server down for a night still gets the events. */
export const DEFAULT_CALENDAR_RETRY: MailRetryPolicy = {
  maxAttempts: 10,
  baseDelaySeconds: 30,
  maxDelaySeconds: 4 * 60 * 60,
};

export const CALENDAR_WRITE_DEFAULTS = { intervalMs: 5000, batchSize: 20, leaseSeconds: 120 } as const;

type Deps = Pick<Runtime, 'stores' | 'logger' | 'calendars' | 'config'>;

async function attempt(deps: Deps, write: CalendarWrite, policy: MailRetryPolicy): Promise<boolean> {
  const knex = deps.stores.db.knex;
  try {
    await performCalendarWrite({ knex, calendars: deps.calendars, baseUrl: deps.config.baseUrl }, write);
    await markCalendarWriteDone(knex, write.id);
    countCalendarWrite('done');
    return true;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const delay = retryDelaySeconds(write.attempts + 1, policy);
    await markCalendarWriteFailed(knex, write.id, reason, delay);
    countCalendarWrite(delay === null ? 'failed' : 'retrying');
    const fields = { writeId: write.id, bookingId: write.bookingId, action: write.action, reason };
    if (delay === null) deps.logger.error(fields, 'calendar write given up after its last attempt');
    else deps.logger.warn({ ...fields, retryInSeconds: delay }, 'calendar write failed; retrying later');
    return false;
  }
}

export function startCalendarWriteWorker(
  deps: Deps,
  options: CalendarWriteWorkerOptions = {},
): CalendarWriteWorker {
  const policy = options.policy ?? DEFAULT_CALENDAR_RETRY;
  return startQueueWorker({
    name: 'calendar write',
    intervalMs: options.intervalMs ?? CALENDAR_WRITE_DEFAULTS.intervalMs,
    batchSize: options.batchSize ?? CALENDAR_WRITE_DEFAULTS.batchSize,
    leaseSeconds: options.leaseSeconds ?? CALENDAR_WRITE_DEFAULTS.leaseSeconds,
    // Claimed in queue order: a booking's create runs before its move or delete.
    claim: (batchSize, leaseSeconds) => claimDueCalendarWrites(deps.stores.db.knex, batchSize, leaseSeconds),
    handle: (write) => attempt(deps, write, policy),
    logger: deps.logger,
  });
}
