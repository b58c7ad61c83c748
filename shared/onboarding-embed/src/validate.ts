import { DEFAULT_HOST, type Theme } from './protocol.ts';

/** The props after validation, with defaults applied. */
export interface ValidProps {
  host: string;
  clientId: string;
  theme: Theme;
  redirectUri: string;
  scope: string[];
  state: string;
  codeChallenge: string | undefined;
  user: { email?: string | undefined; name?: string | undefined; username?: string | undefined } | undefined;
}

export type Validation = { ok: true; props: ValidProps } | { ok: false; message: string };

/** RFC 7636 S256 challenge: 32 bytes of SHA-256, base64url without padding. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A scope token (RFC 6749 3.3): printable ASCII without space, quote or backslash. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

function isHttpUrl(value: unknown, { allowQuery }: { allowQuery: boolean }): value is string {
  if (typeof value !== 'string') return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password || url.hash) return false;
  return allowQuery || !url.search;
}

/**
 * Checks the props the JavaScript way (sites without TypeScript pass anything). Every problem is
 * named, with what was expected, in one message: "Invalid OnboardingEmbed props: a (...); b (...)".
 */
export function validateProps(props: Record<string, unknown>): Validation {
  const problems: string[] = [];

  const clientId = props.oAuthClientId;
  if (!isNonEmptyString(clientId)) problems.push('oAuthClientId (required, a non-empty string)');

  const host = props.host === undefined ? DEFAULT_HOST : props.host;
  if (!isHttpUrl(host, { allowQuery: false })) {
    problems.push('host (an absolute http(s) URL without query or fragment)');
  }

  const theme = props.theme === undefined ? 'light' : props.theme;
  if (theme !== 'light' && theme !== 'dark') problems.push('theme ("light" or "dark")');

  let user: ValidProps['user'];
  if (props.user !== undefined) {
    if (!isRecord(props.user)) {
      problems.push('user (an object with optional email, name and username strings)');
    } else {
      user = {};
      for (const key of ['email', 'name', 'username'] as const) {
        const value = props.user[key];
        if (value === undefined) continue;
        if (typeof value !== 'string') problems.push(`user.${key} (a string)`);
        else user[key] = value;
      }
    }
  }

  const authorization = props.authorization;
  let redirectUri = '';
  let scope: string[] = [];
  let state = '';
  let codeChallenge: string | undefined;
  if (!isRecord(authorization)) {
    problems.push('authorization (required, an object with redirectUri, scope and state)');
  } else {
    if (!isHttpUrl(authorization.redirectUri, { allowQuery: true })) {
      problems.push('authorization.redirectUri (required, an absolute http(s) URL without fragment)');
    } else {
      redirectUri = authorization.redirectUri;
    }
    const s = authorization.scope;
    if (
      !Array.isArray(s) ||
      s.length === 0 ||
      !s.every((value) => typeof value === 'string' && SCOPE_TOKEN.test(value))
    ) {
      problems.push(
        'authorization.scope (required, a non-empty array of scope values such as "EVENT_TYPE_READ")',
      );
    } else {
      scope = s as string[];
    }
    if (!isNonEmptyString(authorization.state)) {
      problems.push('authorization.state (required, a non-empty string)');
    } else {
      state = authorization.state;
    }
    if (authorization.codeChallenge !== undefined) {
      if (
        typeof authorization.codeChallenge !== 'string' ||
        !S256_CHALLENGE.test(authorization.codeChallenge)
      ) {
        problems.push(
          'authorization.codeChallenge (the S256 challenge: base64url of the SHA-256 of the verifier, 43 characters)',
        );
      } else {
        codeChallenge = authorization.codeChallenge;
      }
    }
  }

  for (const name of ['onAuthorizationAllowed', 'onAuthorizationDenied', 'onError', 'onClose']) {
    if (props[name] !== undefined && typeof props[name] !== 'function') problems.push(`${name} (a function)`);
  }

  if (problems.length > 0) {
    return { ok: false, message: `Invalid OnboardingEmbed props: ${problems.join('; ')}` };
  }
  return {
    ok: true,
    props: {
      host: host as string,
      clientId: clientId as string,
      theme: theme as Theme,
      redirectUri,
      scope,
      state,
      codeChallenge,
      user,
    },
  };
}
