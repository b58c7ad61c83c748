import { type User, findUserById } from '@sched/db/queries/users';
import { saveOnboardingCalendar, saveOnboardingProfile } from '@sched/db/queries/onboarding';
import {
  type CalendarProvider,
  canonicalTimeZone,
  isValidName,
  isValidUsername,
  isWeekStart,
  normalizeUsername,
} from '@sched/policy/onboarding';
import type { Context } from 'koa';
import { z } from 'zod';
import { formRefusal, takenUserField } from '../data-errors.ts';
import type { AuthDeps } from '../deps.ts';
import { InteractionExpiredError } from '../errors.ts';
import { CSRF_FIELD, issueCsrfToken, verifyCsrfToken } from '../http/csrf.ts';
import { readParams } from '../http/params.ts';
import { currentInteraction, type Interaction, seeOther } from '../interaction/current.ts';
import { sendPage } from '../pages/layout.ts';
import { interactionPath, PATHS } from '../paths.ts';
import { mintTicket } from '../calendars/connect-state.ts';
import { calendarService, countCalDavAttempt } from '../calendars/library.ts';
import {
  CALDAV_INCOMPLETE,
  calDavProblem,
  readCalDavForm,
  reconnectValues,
} from '../calendars/caldav-form.ts';
import { postsSelection, selectionFromForm } from '../calendars/selection.ts';
import type { ConnectionView } from '@sched/calendars/service';
import { configuredOAuthProviders } from '@sched/calendars/providers/oauth-provider';
import { OnboardingStepError } from '../embed-flow/errors.ts';
import { embedPageOptions, errorMessage } from '../embed-flow/flow.ts';
import { joinEmbedFlow } from '../interaction/embed-flow.ts';
import { type CalendarView, calendarPage } from './pages/calendar.ts';
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

const calendarForm = z.object({ action: z.enum(['continue', 'skip']) });

/** users.calendar_provider (what the step recorded before connections were real) of a connection. */
const ONBOARDING_PROVIDER: Record<ConnectionView['provider'], CalendarProvider> = {
  caldav: 'caldav',
  google: 'google',
  microsoft: 'outlook',
};

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
  failed?: { status: number; error?: string; caldavError?: string; caldav?: CalendarView['caldav'] },
): Promise<void> {
  const providers = configuredOAuthProviders(deps.runtime.config);
  // Each link carries a fresh single-use ticket: the provider's window has none of the frame's cookies.
  const oauthLinks = await Promise.all(
    providers.map(async (provider) => ({
      provider: provider.id,
      label: provider.label,
      href: `${PATHS.calendarConnect}/${provider.id}?${new URLSearchParams({ ticket: await mintTicket(deps, user.id, provider.id) })}`,
    })),
  );
  const problem = failed?.error ?? failed?.caldavError;
  sendPage(
    ctx,
    failed?.status ?? 200,
    'Your calendar',
    calendarPage({
      uid: interaction.uid,
      csrf: issueCsrfToken(ctx, deps.csrf, interaction.uid),
      connections: await calendarService(deps).listConnections(user.id),
      oauthLinks,
      caldav: failed?.caldav ?? (await reconnectValues(deps, ctx, user.id)),
      ...(failed?.error ? { error: failed.error } : {}),
      ...(failed?.caldavError ? { caldavError: failed.caldavError } : {}),
    }),
    embedPageOptions(ctx, problem ? errorMessage('ONBOARDING_FAILED', problem) : undefined),
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

/** POST /auth/interaction/:uid/calendar/caldav: connect a CalDAV account from the step. */
export function connectCalDavStep(deps: AuthDeps) {
  return async function connectCalDavStepHandler(ctx: Context) {
    const { interaction, form, user } = await openStep(deps, ctx);
    if (!user || user.onboardingStep === 'profile') return seeOther(ctx, interactionPath(interaction.uid));
    const { input, values: caldav, complete } = readCalDavForm(form);
    if (!complete)
      return renderCalendar(deps, ctx, interaction, user, {
        status: 400,
        caldav,
        caldavError: CALDAV_INCOMPLETE,
      });
    await countCalDavAttempt(deps, user.id);
    try {
      await calendarService(deps).connectCalDav(user.id, input);
    } catch (error) {
      const problem = calDavProblem(error);
      if (!problem) throw error;
      return renderCalendar(deps, ctx, interaction, user, {
        status: problem.status,
        caldav,
        caldavError: problem.message,
      });
    }
    seeOther(ctx, interactionPath(interaction.uid));
  };
}

/** POST /auth/interaction/:uid/calendar with action=continue or action=skip: on to consent. */
export function saveCalendar(deps: AuthDeps) {
  return async function saveCalendarHandler(ctx: Context) {
    const { interaction, form, user } = await openStep(deps, ctx);
    if (!user) return seeOther(ctx, interactionPath(interaction.uid));
    if (user.onboardingStep === 'profile') return seeOther(ctx, interactionPath(interaction.uid));
    const parsed = calendarForm.safeParse({ action: form.action });
    if (!parsed.success) {
      return renderCalendar(deps, ctx, interaction, user, {
        status: 400,
        error: 'Connect a calendar, or skip this step.',
      });
    }
    const service = calendarService(deps);
    const connections = parsed.data.action === 'continue' ? await service.listConnections(user.id) : [];
    if (postsSelection(form)) {
      try {
        for (const connection of connections)
          await service.updateSelection(user.id, connection.id, selectionFromForm(connection, form));
      } catch (error) {
        const refusal = formRefusal(error);
        if (!refusal) throw error;
        return renderCalendar(deps, ctx, interaction, user, {
          status: refusal.status,
          error: refusal.message,
        });
      }
    }
    const first = connections[0];
    await saveOnboardingCalendar(
      deps.runtime.stores.db.knex,
      deps.runtime.stores.tokenStore,
      user.id,
      first ? ONBOARDING_PROVIDER[first.provider] : null,
    );
    seeOther(ctx, interactionPath(interaction.uid));
  };
}
