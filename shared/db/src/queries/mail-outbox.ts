import type { Knex } from 'knex';

/**
 * The mail outbox (`mail_outbox`): a message is written in the transaction of the change that
 * causes it, sent after commit, and retried by the outbox worker (@sched/runtime/mail-outbox-worker)
 * when sending failed. A message that ran out of attempts keeps `sent_at` null and gets
 * `next_attempt_at = 'infinity'`: no sender picks it up again, and it is listed as failed.
 */

export interface OutboxMessage {
  recipient: string;
  subject: string;
  text: string;
  html: string;
}

/** A queued message as a sender sees it. */
export interface OutboxEntry extends OutboxMessage {
  id: number;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
}

interface OutboxRow {
  id: number | string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  next_attempt_at: Date | string | null;
}

const COLUMNS = [
  'id',
  'recipient',
  'subject',
  'text_body',
  'html_body',
  'attempts',
  'last_error',
  'created_at',
  'next_attempt_at',
] as const;

function mapEntry(row: OutboxRow): OutboxEntry {
  const next = row.next_attempt_at;
  return {
    id: Number(row.id),
    recipient: row.recipient,
    subject: row.subject,
    text: row.text_body,
    html: row.html_body ?? '',
    attempts: Number(row.attempts),
    lastError: row.last_error,
    createdAt: row.created_at,
    // 'infinity' (given up) comes back as a string or an invalid date depending on the driver.
    nextAttemptAt: next instanceof Date && !Number.isNaN(next.getTime()) ? next : null,
  };
}

const seconds = (value: number) => Math.max(1, Math.floor(value));

/**
 * Records a message to send; write it in the transaction of the change that causes it. The
 * request that wrote it sends it right after commit, so the outbox worker leaves it alone for
 * `holdSeconds` (it picks it up only if that send failed or the process died before it).
 */
export async function enqueueMail(knex: Knex, message: OutboxMessage, holdSeconds = 120): Promise<number> {
  const [row] = (await knex('mail_outbox')
    .insert({
      recipient: message.recipient,
      subject: message.subject,
      text_body: message.text,
      html_body: message.html,
      next_attempt_at: knex.raw(`now() + interval '${seconds(holdSeconds)} seconds'`),
    })
    .returning('id')) as Array<{ id: number | string }>;
  return Number(row!.id);
}

export async function markMailSent(knex: Knex, id: number): Promise<void> {
  await knex('mail_outbox')
    .where({ id })
    .update({ sent_at: knex.fn.now(), attempts: knex.raw('attempts + 1'), last_error: null });
}

/**
 * A failed attempt: retried no sooner than `retryAfterSeconds`, or never again when
 * `retryAfterSeconds` is null (out of attempts). Returns the attempts made so far.
 */
export async function markMailFailed(
  knex: Knex,
  id: number,
  error: string,
  retryAfterSeconds: number | null = 300,
): Promise<number> {
  const [row] = (await knex('mail_outbox')
    .where({ id })
    .update({
      attempts: knex.raw('attempts + 1'),
      last_error: error.slice(0, 1000),
      next_attempt_at:
        retryAfterSeconds === null
          ? knex.raw("'infinity'::timestamptz")
          : knex.raw(`now() + interval '${seconds(retryAfterSeconds)} seconds'`),
    })
    .returning('attempts')) as Array<{ attempts: number }>;
  return Number(row?.attempts ?? 0);
}

/**
 * Claims up to `limit` unsent messages that are due: pushes their next attempt `leaseSeconds`
 * ahead in the same statement (rows another worker holds are skipped), so replicas running the
 * worker never send one message twice while both are alive.
 */
export async function claimDueMail(knex: Knex, limit: number, leaseSeconds: number): Promise<OutboxEntry[]> {
  const result = (await knex.raw(
    `update mail_outbox set next_attempt_at = now() + make_interval(secs => ?)
     where id in (
       select id from mail_outbox
       where sent_at is null and next_attempt_at <= now()
       order by next_attempt_at, id
       limit ?
       for update skip locked)
     returning ${COLUMNS.join(', ')}`,
    [seconds(leaseSeconds), Math.max(1, Math.floor(limit))],
  )) as { rows: OutboxRow[] };
  return result.rows.map(mapEntry).sort((a, b) => a.id - b.id);
}

/** Messages the worker gave up on (out of attempts), newest first. */
export async function listFailedMail(knex: Knex, limit = 100): Promise<OutboxEntry[]> {
  const rows = (await knex('mail_outbox')
    .whereNull('sent_at')
    .where('next_attempt_at', knex.raw("'infinity'::timestamptz"))
    .orderBy('id', 'desc')
    .limit(limit)
    .select(COLUMNS)) as OutboxRow[];
  return rows.map(mapEntry);
}

/** Unsent messages still to be tried (due or waiting for their next attempt), oldest first. */
export async function listWaitingMail(knex: Knex, limit = 100): Promise<OutboxEntry[]> {
  const rows = (await knex('mail_outbox')
    .whereNull('sent_at')
    .whereNot('next_attempt_at', knex.raw("'infinity'::timestamptz"))
    .orderBy('id')
    .limit(limit)
    .select(COLUMNS)) as OutboxRow[];
  return rows.map(mapEntry);
}
