import { calendarErrorToAppError } from '@sched/calendars/connect-errors';
import type { CalDavConnectInput } from '@sched/calendars/service';
import { AppError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import type { Params } from '../http/params.ts';
import { calendarService } from './library.ts';

/**
 * The CalDAV form of the settings page and of the onboarding step (Server URL, Username,
 * Password): what it sends to the library's connectCalDav, and the words it shows for a refusal
 * (the API's, connect-errors.ts).
 * The password is never rendered back.
 */
export const CALDAV_INCOMPLETE = 'Enter the server URL (https://...), your username and your password.';

export type CalDavFormValues = { serverUrl: string; username: string };

export function readCalDavForm(form: Params): {
  input: CalDavConnectInput;
  values: CalDavFormValues;
  complete: boolean;
} {
  const input = {
    serverUrl: (form.serverUrl ?? '').trim(),
    username: (form.username ?? '').trim(),
    password: form.password ?? '',
  };
  return {
    input,
    values: { serverUrl: input.serverUrl, username: input.username },
    complete: URL.canParse(input.serverUrl) && input.username !== '' && input.password !== '',
  };
}

/** The query of a CalDAV Reconnect link: the connection's id (never its server or account). */
export const reconnectQuery = (connectionId: number): string =>
  new URLSearchParams({ reconnect: String(connectionId) }).toString();

/**
 * What the form is filled in with when a Reconnect link opened it (`?reconnect=<connection id>`):
 * the server URL and username of that connection, looked up among the signed-in user's own (an id
 * of someone else's, or of no CalDAV connection, leaves the form empty). Never the password.
 */
export async function reconnectValues(
  deps: AuthDeps,
  ctx: Context,
  userId: number,
): Promise<CalDavFormValues> {
  const raw = ctx.query.reconnect;
  const values =
    typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw)
      ? await calendarService(deps).calDavReconnectValues(userId, Number(raw))
      : null;
  return values ?? { serverUrl: '', username: '' };
}

/** The message the form shows for a refusal (the API's words); undefined for errors that are ours (they propagate). */
export function calDavProblem(error: unknown): { status: number; message: string } | undefined {
  const known = calendarErrorToAppError(error) ?? (error instanceof AppError ? error : undefined);
  return known && known.status < 500 ? { status: known.status, message: known.message } : undefined;
}
