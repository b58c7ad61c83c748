import type { User } from '@sched/db/queries/users';
import { escapeHtml, htmlDocument } from '@sched/kit/mail-html';
import type { OutgoingMail } from '@sched/runtime/mail-delivery';

/** What an account e-mail carrying one link says (verification, password reset). */
export interface LinkMail {
  subject: string;
  /** The sentence before the link (plain text; escaped for HTML). */
  intro: string;
  /** The link's label in the HTML part. */
  action: string;
  link: string;
  /** How long the link works and what to do if the mail was not expected. */
  fineprint: string;
}

/** One message, plain text and HTML, greeting the user by name when there is one. */
export function linkMessage(user: Pick<User, 'email' | 'name'>, mail: LinkMail): OutgoingMail {
  const greeting = user.name ? `Hi ${user.name},` : 'Hi,';
  return {
    to: user.email,
    subject: mail.subject,
    text: [greeting, '', mail.intro, '', mail.link, '', mail.fineprint].join('\n'),
    html: htmlDocument(
      mail.subject,
      [
        `<p>${escapeHtml(greeting)}</p>`,
        `<p>${escapeHtml(mail.intro)}</p>`,
        `<p><a href="${escapeHtml(mail.link)}">${escapeHtml(mail.action)}</a></p>`,
        `<p>Or paste this link into your browser:<br>${escapeHtml(mail.link)}</p>`,
        `<p>${escapeHtml(mail.fineprint)}</p>`,
      ].join('\n'),
    ),
  };
}
