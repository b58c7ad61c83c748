import { escapeHtml, htmlDocument } from '@sched/kit/mail-html';
import type { Role } from '@sched/policy/roles';
import { sendThroughOutbox } from '@sched/runtime/mail-delivery';
import type { Runtime } from '@sched/runtime/runtime';

/** Where an invitee answers invitations (the settings page of the authorization server). */
export const INVITATIONS_PAGE_PATH = '/auth/settings/invitations';

export interface InvitationMail {
  to: string;
  kind: 'organization' | 'team';
  /** Name of the organization or team. */
  name: string;
  role: Role;
  inviterName: string | null;
}

/** How the invitee gets in: sign in, or sign up; with sign-up off, an administrator makes the account. */
function howToAnswer(signupEnabled: boolean): string {
  return signupEnabled
    ? 'sign in, or create an account with this e-mail address first'
    : 'sign in; without an account with this e-mail address, ask an administrator of the service for one, since sign-up is turned off';
}

/**
 * The invitation e-mail (plain text and HTML). It says the same whether or not the address has an
 * account: the link leads to the invitations page, whose sign-in page offers to create one (when
 * sign-up is on; otherwise the mail says who makes accounts).
 */
export function invitationMessage(appUrl: string, invitation: InvitationMail, signupEnabled = true) {
  const who = invitation.inviterName ?? 'Someone';
  const role = invitation.role.toLowerCase();
  const subject = `You are invited to join the ${invitation.kind} ${invitation.name}`;
  const link = new URL(INVITATIONS_PAGE_PATH, appUrl).href;
  const text = [
    `${who} invited you to join the ${invitation.kind} "${invitation.name}" as ${role}.`,
    '',
    `Accept or decline the invitation at ${link}`,
    `(${howToAnswer(signupEnabled)}).`,
    '',
    'If you did not expect this invitation, you can ignore this message: nothing changes until you accept.',
  ].join('\n');
  const html = htmlDocument(
    subject,
    [
      `<p>${escapeHtml(who)} invited you to join the ${invitation.kind} <strong>${escapeHtml(invitation.name)}</strong> as ${role}.</p>`,
      `<p><a href="${escapeHtml(link)}">Accept or decline the invitation</a> (${howToAnswer(signupEnabled)}).</p>`,
      '<p>If you did not expect this invitation, you can ignore this message: nothing changes until you accept.</p>',
    ].join('\n'),
  );
  return { to: invitation.to, subject, text, html };
}

/** Sends through the mail outbox: a failed send is retried and never undoes the invitation. */
export async function sendInvitationMail(deps: Runtime, invitation: InvitationMail): Promise<void> {
  await sendThroughOutbox(deps, invitationMessage(deps.config.appUrl, invitation, deps.config.signupEnabled));
}
