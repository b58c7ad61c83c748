import type { Invitation } from '@sched/db/queries/invitations';
import { CSRF_FIELD } from '../../http/csrf.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { PATHS } from '../../paths.ts';
import { alert, formatDate } from '../../web/shell.ts';

export const invitationPath = (membershipId: number, answer: 'accept' | 'decline') =>
  `${PATHS.settingsInvitations}/${membershipId}/${answer}`;

export interface InvitationsView {
  invitations: readonly Invitation[];
  csrf: string;
  /** The signed-in user's address, and whether it is verified (invitations to it show only then). */
  email: string;
  emailVerified: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}

const ROLE_LABELS: Record<string, string> = { OWNER: 'Owner', ADMIN: 'Admin', MEMBER: 'Member' };
const roleLabel = (role: string) => ROLE_LABELS[role] ?? role;
const kindLabel = (kind: Invitation['kind']) => (kind === 'team' ? 'Team' : 'Organization');

/** What to do first, when the invitation is to a team of an organization that also waits for an answer. */
function organizationFirst(invitation: Invitation, all: readonly Invitation[]): SafeHtml | '' {
  if (invitation.teamOrganizationId === null) return '';
  const organization = all.find(
    (other) => other.kind === 'organization' && other.organizationId === invitation.teamOrganizationId,
  );
  return organization
    ? html`<p class="muted small-text">This team belongs to the organization ${organization.name}: accept that invitation first.</p>`
    : '';
}

function answerForm(
  invitation: Invitation,
  answer: 'accept' | 'decline',
  csrf: string,
  headingId: string,
): SafeHtml {
  const label = answer === 'accept' ? 'Accept' : 'Decline';
  return html`<form method="post" action="${invitationPath(invitation.id, answer)}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<button type="submit" class="${answer === 'accept' ? 'primary' : 'secondary'} small" aria-describedby="${headingId}">${label}</button>
</form>`;
}

function invitationItem(invitation: Invitation, view: InvitationsView): SafeHtml {
  const headingId = `invitation-${invitation.id}`;
  const inviter = invitation.invitedBy?.name;
  return html`<li class="invitation">
<div class="invitation-main">
<h2 id="${headingId}">${invitation.name} <span class="visually-hidden">(${kindLabel(invitation.kind).toLowerCase()})</span></h2>
<p class="invitation-meta"><span class="owner-tag">${kindLabel(invitation.kind)}</span> <span>Role: <strong>${roleLabel(invitation.role)}</strong></span>${inviter ? html` <span class="muted">Invited by ${inviter}</span>` : ''} <span class="muted">Sent ${formatDate(invitation.createdAt)}</span></p>
${organizationFirst(invitation, view.invitations)}
${invitation.kind === 'organization' ? html`<p class="muted small-text">Declining also declines your pending invitations to its teams.</p>` : ''}
</div>
<div class="invitation-actions">
${answerForm(invitation, 'accept', view.csrf, headingId)}
${answerForm(invitation, 'decline', view.csrf, headingId)}
</div>
</li>`;
}

const unverifiedNotice = (email: string) =>
  alert(
    'warn',
    html`Invitations sent to your e-mail address ${email} appear here once it is verified. Open the link in the verification e-mail we sent you when you signed up.`,
  );

export function invitationsPage(view: InvitationsView): SafeHtml {
  const { invitations } = view;
  return html`<h1>Invitations${invitations.length > 0 ? html` <span class="count-badge">${invitations.length}</span>` : ''}</h1>
<p class="lead">Organizations and teams that invited you. Nothing changes until you accept; the inviter learns your profile only then.</p>
${alert('ok', view.notice)}
${alert('error', view.error)}
${view.emailVerified ? '' : unverifiedNotice(view.email)}
${
  invitations.length === 0
    ? html`<div class="empty"><p><strong>No pending invitations.</strong></p><p class="muted">When someone invites you to an organization or a team, the invitation appears here.</p></div>`
    : html`<ul class="invitation-list" aria-label="Pending invitations">${invitations.map((invitation) => invitationItem(invitation, view))}</ul>`
}`;
}
