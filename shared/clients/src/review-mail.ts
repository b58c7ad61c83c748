import { enqueueMail } from '@sched/db/queries/mail-outbox';
import { findUserEmail } from '@sched/db/queries/oauth-client-management';
import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import { deliverQueuedMail } from '@sched/runtime/mail-delivery';
import type { Runtime } from '@sched/runtime/runtime';
import type { Knex } from 'knex';
import { type ReviewMessageInput, reviewMessage } from './mail/review-message.ts';

/** Where an owner manages their clients: the settings page of the authorization server. */
export const SETTINGS_CLIENTS_PATH = '/auth/settings/developer/oauth-clients';

export interface QueuedMail {
  id: number;
  recipient: string;
  subject: string;
  text: string;
  html: string;
}

/** Writes the review e-mail to the owner into the outbox (inside the change's transaction). */
export async function queueReviewMail(
  trx: Knex,
  deps: Runtime,
  client: OAuthClient,
  input: Omit<ReviewMessageInput, 'client' | 'settingsUrl'>,
): Promise<QueuedMail | null> {
  const recipient = await findUserEmail(trx, client.ownerUserId);
  if (!recipient) return null;
  const content = reviewMessage({
    ...input,
    client,
    settingsUrl: `${deps.config.appUrl.replace(/\/$/, '')}${SETTINGS_CLIENTS_PATH}`,
  });
  const id = await enqueueMail(trx, { recipient, ...content });
  return { id, recipient, ...content };
}

/** After commit: sends what was queued (a failure stays in the outbox for the worker). */
export async function sendQueued(deps: Runtime, mail: QueuedMail | null): Promise<void> {
  if (mail) await deliverQueuedMail(deps, { ...mail, attempts: 0 });
}
