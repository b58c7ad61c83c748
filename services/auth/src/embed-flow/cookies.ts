import type { ServerResponse } from 'node:http';
import type Cookies from 'cookies';
import { cookiesAreFramed } from './flow.ts';

/**
 * Cookies of a flow running in the dialog's iframe: the embedding page is another site, so a
 * SameSite=Lax cookie would never come back. There every cookie we or oidc-provider set (session,
 * interaction, resume, CSRF) is `SameSite=None; Secure; Partitioned` (CHIPS: kept per embedding
 * site, which is also what lets browsers that block third-party cookies keep it). Everywhere else,
 * the popup included (first-party), cookies stay as configured.
 *
 * Decided when the cookie is set, from the response (markEmbed in flow.ts), because oidc-provider
 * sets its session cookie through a second Koa context made for the same request and response.
 * Chrome treats http://localhost as a secure origin, so the Secure cookies work there in development.
 */
export function applyFramedCookieAttributes(cookies: Cookies, res: ServerResponse): void {
  const set = cookies.set.bind(cookies);
  cookies.set = (name: string, value?: string | null, options?: Cookies.SetOption) => {
    if (!cookiesAreFramed(res)) return set(name, value, options);
    const secure = cookies.secure;
    // The cookies module refuses Secure cookies on a plain-http request unless told the connection is secure.
    cookies.secure = true;
    try {
      return set(name, value, { ...options, sameSite: 'none', secure: true, partitioned: true });
    } finally {
      cookies.secure = secure;
    }
  };
}

/**
 * The entry's test cookie (onboarding-embed README, "Protocol" 4): set on the first request,
 * expected back on the second. When it does not come back the browser refuses the frame its cookies
 * and the flow asks for the popup.
 */
export const COOKIE_CHECK = {
  cookie: 'auth.embed-check',
  /** Query marker of the second request (removed before oidc-provider sees the request). */
  marker: 'embed_cookie_check',
  maxAgeMs: 24 * 60 * 60 * 1000,
} as const;
