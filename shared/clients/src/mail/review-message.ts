import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import { escapeHtml, htmlDocument } from '@sched/kit/mail-html';

/** A message's content; the recipient is added by the sender. Both parts always present. */
export interface MessageContent {
  subject: string;
  text: string;
  html: string;
}

export type ReviewMessageKind = 'approved' | 'rejected' | 're-review';

export interface ReviewMessageInput {
  kind: ReviewMessageKind;
  client: Pick<OAuthClient, 'id' | 'name'>;
  /** Rejected: the administrator's reason. */
  reason?: string | null;
  /** Re-review: what changed (client-review reasons). */
  changes?: readonly string[];
  /** Where the owner manages the client (APP_URL based). */
  settingsUrl: string;
}

/** The e-mail to a client's owner about a review decision or a return to review. */
export function reviewMessage(input: ReviewMessageInput): MessageContent {
  const name = input.client.name;
  const id = input.client.id;
  const url = input.settingsUrl;
  const link = `<p><a href="${escapeHtml(url)}">Open your OAuth client settings</a></p>`;
  if (input.kind === 'approved') {
    const subject = `Your OAuth client "${name}" was approved`;
    return {
      subject,
      text: [
        `Good news: your OAuth client "${name}" (${id}) was approved by a service administrator.`,
        '',
        'Users can now authorize it through the OAuth 2.0 authorization-code flow.',
        'Changing its name, logo, website, redirect URIs, purpose or scopes sends it back to review.',
        '',
        `Settings: ${url}`,
      ].join('\n'),
      html: htmlDocument(
        subject,
        [
          `<p>Good news: your OAuth client <strong>${escapeHtml(name)}</strong> (<code>${escapeHtml(id)}</code>) was approved by a service administrator.</p>`,
          '<p>Users can now authorize it through the OAuth 2.0 authorization-code flow.</p>',
          '<p>Changing its name, logo, website, redirect URIs, purpose or scopes sends it back to review.</p>',
          link,
        ].join('\n'),
      ),
    };
  }
  if (input.kind === 'rejected') {
    const subject = `Your OAuth client "${name}" was rejected`;
    const reason = input.reason ?? '';
    return {
      subject,
      text: [
        `Your OAuth client "${name}" (${id}) was rejected by a service administrator.`,
        '',
        `Reason: ${reason}`,
        '',
        'Edit the client to address the reason; saving the changes resubmits it for review.',
        '',
        `Settings: ${url}`,
      ].join('\n'),
      html: htmlDocument(
        subject,
        [
          `<p>Your OAuth client <strong>${escapeHtml(name)}</strong> (<code>${escapeHtml(id)}</code>) was rejected by a service administrator.</p>`,
          `<p><strong>Reason:</strong> ${escapeHtml(reason)}</p>`,
          '<p>Edit the client to address the reason; saving the changes resubmits it for review.</p>',
          link,
        ].join('\n'),
      ),
    };
  }
  const subject = `Your OAuth client "${name}" is back in review`;
  const changes = input.changes ?? [];
  return {
    subject,
    text: [
      `Your OAuth client "${name}" (${id}) was changed and needs a new review by a service administrator.`,
      'Until it is approved again, users cannot authorize it and it cannot obtain tokens.',
      '',
      'Changes:',
      ...changes.map((c) => `- ${c}`),
      '',
      `Settings: ${url}`,
    ].join('\n'),
    html: htmlDocument(
      subject,
      [
        `<p>Your OAuth client <strong>${escapeHtml(name)}</strong> (<code>${escapeHtml(id)}</code>) was changed and needs a new review by a service administrator.</p>`,
        '<p>Until it is approved again, users cannot authorize it and it cannot obtain tokens.</p>',
        `<ul>${changes.map((c) => `<li>${escapeHtml(c)}</li>`).join('')}</ul>`,
        link,
      ].join('\n'),
    ),
  };
}
