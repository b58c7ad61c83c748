import { configuredOAuthProviders, isOAuthProviderId } from '@sched/calendars/providers/oauth-provider';
import { NotFoundError } from '@sched/kit/errors';
import { formRefusal } from '../data-errors.ts';
import type { Context } from 'koa';
import {
  CALDAV_INCOMPLETE,
  calDavProblem,
  readCalDavForm,
  reconnectValues,
} from '../calendars/caldav-form.ts';
import { calendarService, countCalDavAttempt } from '../calendars/library.ts';
import { configuredProvider, startOAuthConnect } from '../calendars/oauth-connect.ts';
import { type ConnectProblem, connectProblemMessage } from '../calendars/pages/connect-result.ts';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, readForm, userPurpose } from '../web/forms.ts';
import type { SignedIn } from '../web/session.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { type CalDavValues, calendarsPage } from './pages/calendars.ts';
import { selectionFromForm } from '../calendars/selection.ts';
import { PROVIDER_NAMES } from '../calendars/provider-names.ts';

/**
 * Calendars (docs/calendars.md "For users"): the user's connections with their status and last
 * write error, the calendars checked for conflicts and the destination, Reconnect, Disconnect, the
 * CalDAV form and the Google / Microsoft buttons (when configured). Every change goes through the
 * calendar library's service, the same functions as `/v2/calendars`; no credential is ever
 * rendered.
 */

const NOTICES: Record<string, string> = {
  caldav: 'Calendar connected. Choose below which calendars are checked for conflicts.',
  saved: 'Calendars saved.',
  disconnected:
    'Calendar disconnected. Its saved credentials were deleted; events already written stay in it.',
};

const PROBLEMS = new Set<ConnectProblem>(['denied', 'partial', 'expired', 'refused', 'unavailable']);

function noticeOf(ctx: Context): { notice?: string; error?: string } {
  const { notice, connected, problem, provider } = ctx.query;
  if (typeof connected === 'string' && isOAuthProviderId(connected))
    return {
      notice: `${PROVIDER_NAMES[connected]} connected. Choose below which calendars are checked for conflicts.`,
    };
  if (
    typeof problem === 'string' &&
    PROBLEMS.has(problem as ConnectProblem) &&
    typeof provider === 'string' &&
    isOAuthProviderId(provider)
  )
    return { error: connectProblemMessage(PROVIDER_NAMES[provider], problem as ConnectProblem) };
  return typeof notice === 'string' && NOTICES[notice] ? { notice: NOTICES[notice] } : {};
}

async function render(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  options: { status?: number; error?: string; caldav?: CalDavValues; caldavError?: string } = {},
): Promise<void> {
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  const connections = await calendarService(deps).listConnections(signedIn.user.id);
  const messages = options.error || options.caldavError ? {} : noticeOf(ctx);
  sendSettingsPage(
    ctx,
    options.status ?? 200,
    'Calendars',
    shell(
      { signedIn, csrf, section: 'calendars' },
      calendarsPage({
        connections,
        csrf,
        oauthProviders: configuredOAuthProviders(deps.runtime.config).map(({ id, label }) => ({ id, label })),
        caldav: options.caldav ?? (await reconnectValues(deps, ctx, signedIn.user.id)),
        caldavError: options.caldavError,
        notice: messages.notice,
        error: options.error ?? messages.error,
      }),
    ),
  );
}

const connectionIdOf = (ctx: Context): number | null => {
  const raw = (ctx as Context & { params?: Record<string, string> }).params?.connectionId ?? '';
  return /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : null;
};

/** GET /auth/settings/calendars */
export async function calendarsList(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  await render(deps, ctx, signedIn);
}

/** POST /auth/settings/calendars/caldav: discover, verify, save; refused credentials save nothing. */
export async function connectCalDavAction(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const { input, values: caldav, complete } = readCalDavForm(form);
  if (!complete) return render(deps, ctx, signedIn, { status: 400, caldav, caldavError: CALDAV_INCOMPLETE });
  await countCalDavAttempt(deps, signedIn.user.id);
  try {
    await calendarService(deps).connectCalDav(signedIn.user.id, input);
  } catch (error) {
    const problem = calDavProblem(error);
    if (!problem) throw error;
    return render(deps, ctx, signedIn, { status: problem.status, caldav, caldavError: problem.message });
  }
  seeOther(ctx, `${PATHS.settingsCalendars}?notice=caldav`);
}

/** POST /auth/settings/calendars/connect/:provider: off to Google / Microsoft. */
export async function startConnectAction(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  await readForm(deps, ctx, userPurpose(signedIn.user.id));
  await startOAuthConnect(deps, ctx, configuredProvider(deps, ctx), signedIn.user.id, 'settings');
}

/** POST /auth/settings/calendars/:connectionId: the calendars checked for conflicts and the destination. */
export async function saveSelectionAction(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const form = await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const service = calendarService(deps);
  const id = connectionIdOf(ctx);
  const connection =
    id === null ? undefined : (await service.listConnections(signedIn.user.id)).find((c) => c.id === id);
  if (!connection)
    return render(deps, ctx, signedIn, { status: 404, error: 'Calendar connection not found' });
  try {
    await service.updateSelection(signedIn.user.id, connection.id, selectionFromForm(connection, form));
  } catch (error) {
    const refusal = formRefusal(error);
    if (!refusal) throw error;
    return render(deps, ctx, signedIn, { status: refusal.status, error: refusal.message });
  }
  seeOther(ctx, `${PATHS.settingsCalendars}?notice=saved`);
}

/** POST /auth/settings/calendars/:connectionId/disconnect */
export async function disconnectAction(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const id = connectionIdOf(ctx);
  try {
    if (id === null) throw new NotFoundError('Calendar connection not found');
    await calendarService(deps).disconnect(signedIn.user.id, id);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return render(deps, ctx, signedIn, { status: 404, error: 'Calendar connection not found' });
  }
  seeOther(ctx, `${PATHS.settingsCalendars}?notice=disconnected`);
}
