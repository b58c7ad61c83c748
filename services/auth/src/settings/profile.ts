import { resendVerification } from '@sched/accounts/verification';
import { updateUser, type User } from '@sched/db/queries/users';
import { profilePatch } from '@sched/policy/user-fields';
import type { Context } from 'koa';
import { takenUserField } from '../data-errors.ts';
import type { AuthDeps } from '../deps.ts';
import type { Params } from '../http/params.ts';
import { seeOther } from '../interaction/current.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, type FieldErrors, fieldErrorsOf, readForm, userPurpose } from '../web/forms.ts';
import { type ProfileValues, profilePage } from './pages/profile.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import type { SignedIn } from '../web/session.ts';

/**
 * The profile page: name, username, time zone, week start, locale and time format, checked by the
 * rules of `PATCH /v2/me` (`profilePatch` of `@sched/policy/user-fields`, the same schema) and saved
 * with the same `updateUser`, which bumps the user's cache version, so `GET /v2/me` shows the change
 * on the next request. Also the e-mail's verification status and a button resending the link.
 */

const NOTICES: Record<string, string> = {
  saved: 'Profile saved.',
  'verification-sent': 'We sent a new verification link. It works for 24 hours.',
  verified: 'Your e-mail address is already verified.',
};

const noticeOf = (ctx: Context): string | undefined => {
  const key = ctx.query.notice;
  return typeof key === 'string' && Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined;
};

const valuesOf = (user: User): ProfileValues => ({
  name: user.name ?? '',
  username: user.username ?? '',
  timeZone: user.timeZone,
  weekStart: user.weekStart,
  locale: user.locale,
  timeFormat: user.timeFormat === null ? '' : String(user.timeFormat),
});

function render(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  options: { status?: number; values?: ProfileValues; errors?: FieldErrors } = {},
): void {
  const { user } = signedIn;
  const csrf = csrfFor(deps, ctx, userPurpose(user.id));
  sendSettingsPage(
    ctx,
    options.status ?? 200,
    'Profile',
    shell(
      { signedIn, csrf, section: 'profile' },
      profilePage({
        csrf,
        values: options.values ?? valuesOf(user),
        errors: options.errors ?? {},
        email: user.email,
        emailVerified: user.emailVerifiedAt !== null,
        notice: options.errors ? undefined : noticeOf(ctx),
      }),
    ),
    { script: PATHS.settingsTimeZoneScript },
  );
}

/** GET /auth/settings/profile (behind `signedInPage`). */
export async function profileForm(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  render(deps, ctx, signedIn);
}

/** Form text -> the PATCH /v2/me body: an empty name or username clears it, an empty time format too. */
function patchOf(form: Params): Record<string, unknown> {
  const text = (field: string) => (form[field] ?? '').trim();
  const timeFormat = text('timeFormat');
  return {
    name: text('name') === '' ? null : (form.name ?? ''),
    username: text('username') === '' ? null : text('username'),
    timeZone: text('timeZone'),
    weekStart: text('weekStart'),
    locale: text('locale'),
    timeFormat: timeFormat === '' ? null : /^\d{1,3}$/.test(timeFormat) ? Number(timeFormat) : timeFormat,
  };
}

/** POST /auth/settings/profile: saves, then 303 to the page; invalid fields: 400 (taken username: 409). */
export async function saveProfile(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const values: ProfileValues = {
    name: form.name ?? '',
    username: form.username ?? '',
    timeZone: form.timeZone ?? '',
    weekStart: form.weekStart ?? '',
    locale: form.locale ?? '',
    timeFormat: form.timeFormat ?? '',
  };
  const parsed = profilePatch.safeParse(patchOf(form));
  if (!parsed.success)
    return render(deps, ctx, signedIn, { status: 400, values, errors: fieldErrorsOf(parsed.error) });
  const knex = deps.runtime.stores.db.knex;
  try {
    await updateUser(knex, deps.runtime.stores.tokenStore, signedIn.user.id, parsed.data);
  } catch (error) {
    const field = takenUserField(error);
    if (!field) throw error;
    return render(deps, ctx, signedIn, {
      status: 409,
      values,
      errors: { [field]: field === 'username' ? 'This username is taken.' : 'This is already in use.' },
    });
  }
  seeOther(ctx, `${PATHS.settingsProfile}?notice=saved`);
}

/**
 * POST /auth/settings/profile/verification-email: a new link to the signed-in user's address
 * through `@sched/accounts/verification` `resendVerification` (the limit per user is shared with
 * `POST /v2/me/verification-email`: over it, the 429 page), then 303 to the profile with a notice.
 * Already verified: nothing is sent, the page says so.
 */
export async function resendVerificationEmail(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
): Promise<void> {
  const { user } = signedIn;
  await readForm(deps, ctx, userPurpose(user.id));
  if (user.emailVerifiedAt !== null) return seeOther(ctx, `${PATHS.settingsProfile}?notice=verified`);
  await resendVerification(deps.runtime, user);
  seeOther(ctx, `${PATHS.settingsProfile}?notice=verification-sent`);
}
