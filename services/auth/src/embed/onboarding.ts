import { type User, findUserById } from '@sched/db/queries/users';
import { saveOnboardingCalendar, saveOnboardingProfile } from '@sched/db/queries/onboarding';
import {
  type CalendarProvider,
  canonicalTimeZone,
  isCalendarProvider,
  isValidName,
  isValidUsername,
  isWeekStart,
  normalizeUsername,
} from '@sched/policy/onboarding';
import type { Context } from 'koa';
import { z } from 'zod';
import { takenUserField } from '../data-errors.ts';
import type { AuthDeps } from '../deps.ts';
import { InteractionExpiredError } from '../errors.ts';
import { CSRF_FIELD, issueCsrfToken, verifyCsrfToken } from '../http/csrf.ts';
import { readParams } from '../http/params.ts';
import { currentInteraction, type Interaction, seeOther } from '../interaction/current.ts';
import { sendPage } from '../pages/layout.ts';
import { interactionPath } from '../paths.ts';
import { OnboardingStepError } from '../embed-flow/errors.ts';
import { embedPageOptions, errorMessage } from '../embed-flow/flow.ts';
import { joinEmbedFlow } from '../interaction/embed-flow.ts';
import { calendarPage } from './pages/calendar.ts';
import { type ProfileField, type ProfileView, profilePage } from './pages/profile.ts';

/**
 * The onboarding steps between sign-in and consent (users.onboarding_step): profile, then calendar.
 * They run only in onboarding-embed flows, once the user is signed in (the consent prompt), and
 * save to the signed-in account of the interaction, never to an id from the form.
 */

const FIELD_MESSAGES: Record<ProfileField, string> = {
  name: 'Enter your name (up to 100 characters).',
  username: 'Use 2 to 40 letters, digits, dots, dashes or underscores, starting with a letter or digit.',
  time_zone: 'Choose a time zone from the list.',
  week_start: 'Choose the day your week starts on.',
};

const profileForm = z.object({
  name: z
    .string()
    .transform((value) => value.trim())
    .refine(isValidName, FIELD_MESSAGES.name),
  username: z.string().transform(normalizeUsername).refine(isValidUsername, FIELD_MESSAGES.username),
  time_zone: z.string().transform((value, check) => {
    const zone = canonicalTimeZone(value);
    if (zone === null) check.addIssue({ code: 'custom', message: FIELD_MESSAGES.time_zone });
    return zone ?? '';
  }),
  week_start: z.string().refine(isWeekStart, FIELD_MESSAGES.week_start),
});

const calendarForm = z.discriminatedUnion('action', [
  z.object({ action: z.literal('skip') }),
  z.object({
    action: z.literal('connect'),
    provider: z.string().refine(isCalendarProvider, 'Choose a calendar, or skip this step.'),
  }),
]);

/** The signed-in user of an interaction at the consent prompt (where onboarding happens). */
async function signedInUser(deps: AuthDeps, interaction: Interaction): Promise<User> {
  const accountId = interaction.session?.accountId;
  const user = accountId ? await findUserById(deps.runtime.stores.db.knex, Number(accountId)) : null;
  if (!user) throw new InteractionExpiredError();
  return user;
}

export async function renderProfile(
  deps: AuthDeps,
  ctx: Context,
  interaction: Interaction,
  user: User,
  failed?: { status: number; values: ProfileView['values']; errors: Partial<Record<ProfileField, string>> },
): Promise<void> {
  const view: ProfileView = {
    uid: interaction.uid,
    csrf: issueCsrfToken(ctx, deps.csrf, interaction.uid),
    values: failed?.values ?? {
      name: user.name ?? '',
      username: user.username ?? '',
      time_zone: user.timeZone,
      week_start: user.weekStart,
    },
    ...(failed ? { errors: failed.errors } : {}),
    // A new account is in UTC until the user says otherwise: the browser's zone is the better guess.
    detectTimeZone: !failed && user.timeZone === 'UTC',
  };
  const problem = failed ? Object.values(failed.errors).join(' ') : undefined;
  sendPage(
    ctx,
    failed?.status ?? 200,
    'Your profile',
    profilePage(view),
    embedPageOptions(ctx, problem ? errorMessage('ONBOARDING_FAILED', problem) : undefined),
  );
}

export async function renderCalendar(
  deps: AuthDeps,
  ctx: Context,
  interaction: Interaction,
  user: User,
  failed?: { status: number; error: string },
): Promise<void> {
  const selected =
    user.calendarProvider && isCalendarProvider(user.calendarProvider) ? user.calendarProvider : null;
  sendPage(
    ctx,
    failed?.status ?? 200,
    'Your calendar',
    calendarPage({
      uid: interaction.uid,
      csrf: issueCsrfToken(ctx, deps.csrf, interaction.uid),
      selected,
      ...(failed ? { error: failed.error } : {}),
    }),
    embedPageOptions(ctx, failed ? errorMessage('ONBOARDING_FAILED', failed.error) : undefined),
  );
}

/** Opens a step's POST: the embed interaction at the consent prompt, its CSRF token, the user. */
async function openStep(deps: AuthDeps, ctx: Context) {
  const interaction = await currentInteraction(deps, ctx);
  const flow = await joinEmbedFlow(deps, ctx, interaction);
  const form = await readParams(ctx, { json: false });
  verifyCsrfToken(ctx, deps.csrf, interaction.uid, form[CSRF_FIELD]);
  if (!flow) throw new OnboardingStepError();
  if (interaction.prompt.name !== 'consent') return { interaction, form, user: null };
  return { interaction, form, user: await signedInUser(deps, interaction) };
}

/** POST /auth/interaction/:uid/profile */
export function saveProfile(deps: AuthDeps) {
  return async function saveProfileHandler(ctx: Context) {
    const { interaction, form, user } = await openStep(deps, ctx);
    if (!user) return seeOther(ctx, interactionPath(interaction.uid));
    const values = {
      name: form.name ?? '',
      username: form.username ?? '',
      time_zone: form.time_zone ?? '',
      week_start: form.week_start ?? '',
    };
    const parsed = profileForm.safeParse(values);
    if (!parsed.success) {
      const errors: Partial<Record<ProfileField, string>> = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0] as ProfileField;
        errors[field] ??= FIELD_MESSAGES[field] ?? issue.message;
      }
      return renderProfile(deps, ctx, interaction, user, { status: 400, values, errors });
    }
    const { name, username, time_zone: timeZone, week_start: weekStart } = parsed.data;
    try {
      await saveOnboardingProfile(deps.runtime.stores.db.knex, deps.runtime.stores.tokenStore, user.id, {
        name,
        username,
        timeZone,
        weekStart: weekStart as User['weekStart'],
      });
    } catch (error) {
      if (takenUserField(error) !== 'username') throw error;
      return renderProfile(deps, ctx, interaction, user, {
        status: 409,
        values,
        errors: { username: 'This username is taken. Try another one.' },
      });
    }
    seeOther(ctx, interactionPath(interaction.uid));
  };
}

/** POST /auth/interaction/:uid/calendar with action=connect&provider=... or action=skip. */
export function saveCalendar(deps: AuthDeps) {
  return async function saveCalendarHandler(ctx: Context) {
    const { interaction, form, user } = await openStep(deps, ctx);
    if (!user) return seeOther(ctx, interactionPath(interaction.uid));
    if (user.onboardingStep === 'profile') return seeOther(ctx, interactionPath(interaction.uid));
    const parsed = calendarForm.safeParse({ action: form.action, provider: form.provider ?? '' });
    if (!parsed.success) {
      return renderCalendar(deps, ctx, interaction, user, {
        status: 400,
        error: 'Choose a calendar, or skip this step.',
      });
    }
    const provider: CalendarProvider | null =
      parsed.data.action === 'connect' ? (parsed.data.provider as CalendarProvider) : null;
    await saveOnboardingCalendar(
      deps.runtime.stores.db.knex,
      deps.runtime.stores.tokenStore,
      user.id,
      provider,
    );
    seeOther(ctx, interactionPath(interaction.uid));
  };
}
