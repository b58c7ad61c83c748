import { markMailFailed, markMailSent } from '@sched/db/queries/oauth-client-management';
import type { Runtime } from '@sched/runtime/runtime';

/**
 * Sends a message already written to `mail_outbox` (in the transaction of the change that caused
 * it) through the runtime mailer (SMTP_URL, or .eml files in DATA_DIR/mail) and records the
 * outcome. A failure is logged and left in the outbox for retry; it never fails the request, whose
 * change is already committed.
 */
export async function deliverQueuedMail(
  deps: Runtime,
  outboxId: number,
  message: { to: string; subject: string; text: string; html: string },
): Promise<boolean> {
  const knex = deps.stores.db.knex;
  try {
    await deps.mailer.send(message);
    await markMailSent(knex, outboxId);
    return true;
  } catch (error) {
    deps.logger.warn({ err: error, outboxId, subject: message.subject }, 'mail not sent; kept in the outbox');
    await markMailFailed(knex, outboxId, error instanceof Error ? error.message : String(error)).catch(
      () => {},
    );
    return false;
  }
}
