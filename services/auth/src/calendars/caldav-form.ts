import { CredentialsRefusedError, ProviderUnavailableError } from '@sched/calendars/connector';
import type { CalDavConnectInput } from '@sched/calendars/service';
import { AppError } from '@sched/kit/errors';
import type { Params } from '../http/params.ts';

/**
 * The CalDAV form of the settings page and of the onboarding step (Server URL, Username,
 * Password): what it sends to the library's connectCalDav, and the words it shows for a refusal.
 * The password is never rendered back.
 */
export const CALDAV_REFUSED = 'The calendar server refused these credentials';
export const CALDAV_UNREACHABLE =
  'The calendar server could not be reached. Check the address and try again.';
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

/** The message the form shows for a refusal; undefined for errors that are ours (they propagate). */
export function calDavProblem(error: unknown): { status: number; message: string } | undefined {
  if (error instanceof CredentialsRefusedError) return { status: 400, message: CALDAV_REFUSED };
  if (error instanceof ProviderUnavailableError) return { status: 400, message: CALDAV_UNREACHABLE };
  if (error instanceof AppError && error.status < 500)
    return { status: error.status, message: error.message };
  return undefined;
}
