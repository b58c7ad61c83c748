import type { Role } from '@sched/policy/roles';
import { sendThroughOutbox } from '@sched/runtime/mail-delivery';
import type { Runtime } from '@sched/runtime/runtime';

export interface Invitation {
  to: string;
  kind: 'organization' | 'team';
  /** Name of the organization or team. */
  name: string;
  role: Role;
  inviterName: string | null;
  /** The invitee has a complete account (sign in) rather than one to finish (sign up). */
  hasAccount: boolean;
}

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The invitation e-mail (plain text and HTML). */
export function invitationMessage(appUrl: string, invitation: Invitation) {
  const who = invitation.inviterName ?? 'Someone';
  const role = invitation.role.toLowerCase();
  const subject = `You are invited to join the ${invitation.kind} ${invitation.name}`;
  const action = invitation.hasAccount ? 'Sign in' : 'Create your account';
  const link = appUrl;
  const text = [
    `${who} invited you to join the ${invitation.kind} "${invitation.name}" as ${role}.`,
    '',
    `${action} at ${link} to accept the invitation.`,
    '',
    'If you did not expect this invitation, you can ignore this message.',
  ].join('\n');
  const html = `<!doctype html><html><body>
<p>${escapeHtml(who)} invited you to join the ${invitation.kind} <strong>${escapeHtml(invitation.name)}</strong> as ${role}.</p>
<p><a href="${escapeHtml(link)}">${action}</a> to accept the invitation.</p>
<p>If you did not expect this invitation, you can ignore this message.</p>
</body></html>`;
  return { to: invitation.to, subject, text, html };
}

/**
 * Sends the invitation through the mail outbox: a failed send is retried by the outbox worker and
 * never undoes the membership.
 */
export async function sendInvitation(deps: Runtime, invitation: Invitation): Promise<void> {
  await sendThroughOutbox(deps, invitationMessage(deps.config.appUrl, invitation));
}
