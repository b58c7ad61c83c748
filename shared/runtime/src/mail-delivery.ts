import { enqueueMail, markMailFailed, markMailSent, type OutboxEntry } from '@sched/db/queries/mail-outbox';
import { countMail } from '@sched/kit/metrics';
import type { Runtime } from './runtime-types.ts';

/**
 * When a failed message is tried again: exponential backoff from `baseDelaySeconds`, capped at
 * `maxDelaySeconds`; after `maxAttempts` failed attempts the message is given up (marked failed
 * and logged as an error). Defaults: 8 attempts over about 4 hours.
 */
export interface MailRetryPolicy {
  maxAttempts: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
}

export const DEFAULT_MAIL_RETRY: MailRetryPolicy = {
  maxAttempts: 8,
  baseDelaySeconds: 60,
  maxDelaySeconds: 2 * 60 * 60,
};

/** Seconds until the next attempt after `failedAttempts` failures, or null when out of attempts. */
export function retryDelaySeconds(failedAttempts: number, policy: MailRetryPolicy): number | null {
  if (failedAttempts >= policy.maxAttempts) return null;
  const exponent = Math.max(0, failedAttempts - 1);
  return Math.min(policy.maxDelaySeconds, policy.baseDelaySeconds * 2 ** exponent);
}

export type MailDeps = Pick<Runtime, 'stores' | 'mailer' | 'logger'>;

/**
 * Sends a message already written to `mail_outbox` through the runtime mailer (SMTP_URL, or .eml
 * files in DATA_DIR/mail) and records the outcome. A failure is logged and left in the outbox for
 * the worker's next attempt; it never throws, because the change that caused the message is
 * already committed.
 */
export async function deliverQueuedMail(
  deps: MailDeps,
  entry: Pick<OutboxEntry, 'id' | 'recipient' | 'subject' | 'text' | 'html' | 'attempts'>,
  policy: MailRetryPolicy = DEFAULT_MAIL_RETRY,
): Promise<boolean> {
  const knex = deps.stores.db.knex;
  try {
    await deps.mailer.send({
      to: entry.recipient,
      subject: entry.subject,
      text: entry.text,
      html: entry.html,
    });
    await markMailSent(knex, entry.id);
    countMail('sent');
    return true;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const delay = retryDelaySeconds(entry.attempts + 1, policy);
    try {
      await markMailFailed(knex, entry.id, reason, delay);
    } catch (recordError) {
      deps.logger.warn({ err: recordError, outboxId: entry.id }, 'could not record a failed mail attempt');
    }
    const details = { err: error, outboxId: entry.id, subject: entry.subject, attempts: entry.attempts + 1 };
    countMail(delay === null ? 'failed' : 'retrying');
    if (delay === null) deps.logger.error(details, 'mail not sent; out of attempts, marked failed');
    else deps.logger.warn({ ...details, retryInSeconds: delay }, 'mail not sent; kept in the outbox');
    return false;
  }
}

/** A message written by code that has no transaction of its own to put it in. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Writes the message to the outbox, then tries to send it at once. A failed send is not lost: the
 * outbox worker tries again with backoff. Never throws for a mail failure (only when the outbox
 * itself cannot be written, which means the database is down and the caller fails anyway).
 */
export async function sendThroughOutbox(deps: MailDeps, message: OutgoingMail): Promise<boolean> {
  const entry = { recipient: message.to, subject: message.subject, text: message.text, html: message.html };
  const id = await enqueueMail(deps.stores.db.knex, entry);
  return deliverQueuedMail(deps, { id, ...entry, attempts: 0 });
}
