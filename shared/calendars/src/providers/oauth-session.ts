import { CredentialsRefusedError, type OAuthCredentials, ProviderUnavailableError } from '../connector.ts';
import { type Fetch, REFRESH_MARGIN_MS } from './oauth-tokens.ts';

/**
 * The bearer side of an OAuth connection: the access token is refreshed before it expires, and a
 * 401 gets one refresh and one retry; a 401 after that refresh means the provider no longer accepts
 * the grant (CredentialsRefusedError -> needs_reauth). Refreshed credentials are handed to `save`
 * (stored encrypted by the library) before they are used. Concurrent calls of one connector share
 * one refresh.
 */
export interface OAuthSessionOptions {
  credentials: OAuthCredentials;
  fetch: Fetch;
  refresh(credentials: OAuthCredentials): Promise<OAuthCredentials>;
  save(credentials: OAuthCredentials): Promise<void>;
  providerName: string;
  now?: () => number;
}

export interface OAuthSession {
  /** `fetch` with `Authorization: Bearer`; network failures are ProviderUnavailableError. */
  request(url: string, init?: RequestInit): Promise<Response>;
  credentials(): OAuthCredentials;
}

export function oauthSession(options: OAuthSessionOptions): OAuthSession {
  const now = options.now ?? Date.now;
  let current = options.credentials;
  let refreshing: Promise<OAuthCredentials> | undefined;

  const refresh = (): Promise<OAuthCredentials> => {
    refreshing ??= (async () => {
      try {
        const next = await options.refresh(current);
        await options.save(next);
        current = next;
        return next;
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  };

  const expiresSoon = () => Date.parse(current.expiresAt) - REFRESH_MARGIN_MS <= now();

  const send = async (url: string, init: RequestInit, accessToken: string): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${accessToken}`);
    headers.set('accept', 'application/json');
    try {
      return await options.fetch(url, { ...init, headers });
    } catch (error) {
      throw new ProviderUnavailableError(`${options.providerName} unreachable`, { cause: error });
    }
  };

  return {
    credentials: () => current,
    async request(url, init = {}) {
      const token = expiresSoon() ? (await refresh()).accessToken : current.accessToken;
      const first = await send(url, init, token);
      if (first.status !== 401) return first;
      await first.body?.cancel();
      const retried = await send(url, init, (await refresh()).accessToken);
      if (retried.status !== 401) return retried;
      await retried.body?.cancel();
      throw new CredentialsRefusedError(`${options.providerName} refused the access token after a refresh`);
    },
  };
}

/**
 * The JSON of a provider answer, or the error it means: 429 and 5xx are the provider being
 * unavailable (left out of busy times, retried by the write queue); other statuses are errors
 * with the provider's own message (no credential is ever part of it).
 */
export async function jsonOf<T>(response: Response, what: string, providerName: string): Promise<T> {
  if (response.ok) return (response.status === 204 ? {} : await response.json()) as T;
  const detail = await response
    .json()
    .then((body: { error?: { message?: unknown } | unknown }) => {
      const error = (body as { error?: unknown }).error;
      if (typeof error === 'string') return error;
      const message = (error as { message?: unknown } | undefined)?.message;
      return typeof message === 'string' ? message.slice(0, 200) : '';
    })
    .catch(() => '');
  const message = `${providerName} ${what} answered ${response.status}${detail ? `: ${detail}` : ''}`;
  if (response.status === 429 || response.status >= 500) throw new ProviderUnavailableError(message);
  throw new ProviderRequestError(message, response.status);
}

/** A provider refused a request for a reason other than credentials (400, 403, 404 ...). */
export class ProviderRequestError extends Error {
  override name = 'ProviderRequestError';
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}
