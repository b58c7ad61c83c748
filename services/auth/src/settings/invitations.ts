import { AppError, NotFoundError } from '@sched/kit/errors';
import {
  acceptMyInvitation,
  declineMyInvitation,
  INVITATION_NOT_FOUND,
  listMyInvitations,
} from '@sched/memberships/invitee';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, readForm, userPurpose } from '../web/forms.ts';
import { invitationsPage } from './pages/invitations.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { requireSignIn, type SignedIn } from '../web/session.ts';

/**
 * The invitee's invitations (only the invitee accepts or declines, here as in the API): the list of
 * `GET /v2/me/invitations` with Accept and Decline, through the same `@sched/memberships` calls as
 * the API, so who sees what (an invitation to an address only once it is verified), the answers'
 * rules and their messages are the API's.
 */

/** Fixed notices after an answer (the query names one; nothing user-supplied is shown). */
const NOTICES: Record<string, string> = {
  accepted: 'Invitation accepted. You are now a member, and its members see your profile.',
  declined: 'Invitation declined. Nobody was told anything about your account.',
};

const noticeOf = (ctx: Context): string | undefined => {
  const key = ctx.query.notice;
  return typeof key === 'string' && Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined;
};

/** The list, optionally with an answer's refusal (404, 409) on it instead of an error page. */
async function renderList(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  options: { status?: number; error?: string } = {},
): Promise<void> {
  const { user } = signedIn;
  const csrf = csrfFor(deps, ctx, userPurpose(user.id));
  const invitations = await listMyInvitations(deps.runtime, user);
  sendSettingsPage(
    ctx,
    options.status ?? 200,
    'Invitations',
    shell(
      { signedIn, csrf, section: 'invitations' },
      invitationsPage({
        invitations,
        csrf,
        email: user.email,
        emailVerified: user.emailVerifiedAt !== null,
        notice: options.error ? undefined : noticeOf(ctx),
        error: options.error,
      }),
    ),
  );
}

/** GET /auth/settings/invitations (behind `signedInPage`). */
export async function invitationsList(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  await renderList(deps, ctx, signedIn);
}

/** The :membershipId of the path; anything that is not an id is simply not found. */
function membershipIdOf(ctx: Context): number {
  const raw = (ctx as Context & { params?: Record<string, string> }).params?.membershipId ?? '';
  const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new NotFoundError(INVITATION_NOT_FOUND);
  return id;
}

const ANSWERS = {
  accept: { run: acceptMyInvitation, notice: 'accepted' },
  decline: { run: declineMyInvitation, notice: 'declined' },
} as const;

/**
 * POST /auth/settings/invitations/:membershipId/accept | decline: CSRF-checked for the signed-in
 * user, then a 303 to the list with a fixed notice. A refusal (someone else's or an answered
 * invitation: 404; a team before its organization, or a membership held already: 409) is shown on
 * the list with its status and the library's message. Signed out: the sign-in page, then the list
 * (the answer's path has no page of its own, and its CSRF token was the old session's).
 */
export function answerInvitation(deps: AuthDeps, answer: keyof typeof ANSWERS) {
  return async function answerInvitationHandler(ctx: Context) {
    const signedIn = await requireSignIn(deps, ctx, PATHS.settingsInvitations);
    if (!signedIn) return;
    await readForm(deps, ctx, userPurpose(signedIn.user.id));
    try {
      await ANSWERS[answer].run(deps.runtime, signedIn.user, membershipIdOf(ctx), signedIn.actor.audit);
    } catch (error) {
      if (!(error instanceof AppError) || (error.status !== 404 && error.status !== 409)) throw error;
      return renderList(deps, ctx, signedIn, { status: error.status, error: error.message });
    }
    seeOther(ctx, `${PATHS.settingsInvitations}?notice=${ANSWERS[answer].notice}`);
  };
}
