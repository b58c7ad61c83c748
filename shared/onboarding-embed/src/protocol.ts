/**
 * The wire protocol between <OnboardingEmbed /> (the parent page) and the onboarding pages served by
 * the authorization server under /auth/embed/... (in an iframe, or in a popup window as a fallback).
 * Documented for the server side in ../README.md ("Protocol"). Pure functions: no DOM access here.
 */

/** Path of the embed entry page, appended to `host` (which may carry a path prefix). */
export const EMBED_PATH = '/auth/embed/onboarding';

/** Default `host`: the origin `npm start` serves on. Production sites must set `host`. */
export const DEFAULT_HOST = 'http://localhost:3000';

/** The product name shown on the default trigger and in the dialog title. */
export const PRODUCT_NAME = 'Scheduling';

export const ERROR_CODES = [
  'INVALID_PROPS',
  'SIGNUP_FAILED',
  'ONBOARDING_FAILED',
  'AUTHORIZATION_FAILED',
  'STATE_MISMATCH',
  'UNKNOWN',
] as const;
export type OnboardingErrorCode = (typeof ERROR_CODES)[number];

/** Codes the embed pages may send in `onboarding:error`; anything else arrives as UNKNOWN. */
const REMOTE_ERROR_CODES: ReadonlySet<string> = new Set([
  'SIGNUP_FAILED',
  'ONBOARDING_FAILED',
  'AUTHORIZATION_FAILED',
  'UNKNOWN',
]);

export type Theme = 'light' | 'dark';
export type EmbedMode = 'iframe' | 'popup';

export interface OnboardingUrlInput {
  host: string;
  clientId: string;
  redirectUri: string;
  scope: readonly string[];
  state: string;
  codeChallenge?: string | undefined;
  theme: Theme;
  user?: { email?: string | undefined; name?: string | undefined; username?: string | undefined } | undefined;
  /** `window.location.origin` of the page that hosts the component. */
  parentOrigin: string;
  mode: EmbedMode;
}

/** Strips trailing slashes so `${base}${EMBED_PATH}` never doubles one. */
function hostBase(host: string): string {
  return host.replace(/\/+$/, '');
}

/** The exact origin messages must come from: the origin of `host`. */
export function hostOrigin(host: string): string {
  return new URL(host).origin;
}

/**
 * The URL of the embed entry page. Every value is percent-encoded with encodeURIComponent, so the
 * space-separated `scope` travels as %20, never as `+`, which only form decoding reads as a space.
 */
export function buildOnboardingUrl(input: OnboardingUrlInput): string {
  const params: Array<[string, string]> = [
    ['client_id', input.clientId],
    ['redirect_uri', input.redirectUri],
    ['scope', input.scope.join(' ')],
    ['state', input.state],
  ];
  if (input.codeChallenge) {
    params.push(['code_challenge', input.codeChallenge], ['code_challenge_method', 'S256']);
  }
  params.push(['theme', input.theme]);
  if (input.user?.email) params.push(['prefill_email', input.user.email]);
  if (input.user?.name) params.push(['prefill_name', input.user.name]);
  if (input.user?.username) params.push(['prefill_username', input.user.username]);
  params.push(['parent_origin', input.parentOrigin]);
  if (input.mode === 'popup') params.push(['mode', 'popup']);
  const query = params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
  return `${hostBase(input.host)}${EMBED_PATH}?${query}`;
}

/** `redirectUri` with the given query parameters set (keeps the URI's own query, drops a fragment). */
export function withQuery(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  url.hash = '';
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

export type EmbedMessage =
  | { type: 'onboarding:ready' }
  | { type: 'onboarding:needs-popup' }
  | { type: 'onboarding:close' }
  | {
      type: 'onboarding:error';
      code: Exclude<OnboardingErrorCode, 'INVALID_PROPS' | 'STATE_MISMATCH'>;
      message: string;
    }
  | { type: 'authorization:allowed'; code: unknown; state: unknown; iss: string | undefined }
  | { type: 'authorization:denied'; state: unknown; iss: string | undefined };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `event.data` into a protocol message, or null for anything that is not one of ours (other
 * scripts on the page post messages too). Origin and source are checked by the caller; `state` and
 * `code` of the authorization messages are left for the caller to check and report.
 */
export function parseMessage(data: unknown): EmbedMessage | null {
  if (!isRecord(data) || typeof data.type !== 'string') return null;
  switch (data.type) {
    case 'onboarding:ready':
    case 'onboarding:needs-popup':
    case 'onboarding:close':
      return { type: data.type };
    case 'onboarding:error': {
      const code = typeof data.code === 'string' && REMOTE_ERROR_CODES.has(data.code) ? data.code : 'UNKNOWN';
      const message =
        typeof data.message === 'string' && data.message.length > 0
          ? data.message.slice(0, 500)
          : 'The onboarding flow reported an error.';
      return { type: 'onboarding:error', code: code as 'UNKNOWN', message };
    }
    case 'authorization:allowed':
      return {
        type: 'authorization:allowed',
        code: data.code,
        state: data.state,
        iss: typeof data.iss === 'string' ? data.iss : undefined,
      };
    case 'authorization:denied':
      return {
        type: 'authorization:denied',
        state: data.state,
        iss: typeof data.iss === 'string' ? data.iss : undefined,
      };
    default:
      return null;
  }
}
