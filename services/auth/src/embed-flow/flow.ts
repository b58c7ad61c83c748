import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import { z } from 'zod';
import type { PageOptions, Theme } from '../pages/layout.ts';
import { PATHS } from '../paths.ts';

/**
 * An onboarding-embed flow: the embed-only parameters of its entry URL (shared/onboarding-embed
 * README "Protocol" 1), kept by oidc-provider with the authorization request (`extraParams`), so
 * every later step (sign-up, profile, calendar, consent, the final response) reads them from the
 * interaction, never from the browser.
 */
export const EMBED_RESPONSE_MODE = 'embed';

/** The entry's own parameters, stored with the authorization request. */
export const EMBED_PARAMS = [
  'theme',
  'parent_origin',
  'mode',
  'prefill_email',
  'prefill_name',
  'prefill_username',
] as const;

const optionalText = (max: number) => z.string().max(max).optional();

/** Validation of the embed parameters at the entry (zod, at the edge). */
export const embedParamsSchema = z.object({
  theme: z.enum(['light', 'dark']),
  parent_origin: z.string().min(1).max(2048),
  mode: z.enum(['popup']).optional(),
  prefill_email: optionalText(254),
  prefill_name: optionalText(100),
  prefill_username: optionalText(40),
});

export interface EmbedFlow {
  theme: Theme;
  /** 'frame' in the dialog's iframe (cross-site: partitioned cookies), 'popup' first-party. */
  mode: 'frame' | 'popup';
  /** The embedding page's origin, once checked against the client's redirect URIs; else null (post nothing). */
  parentOrigin: string | null;
  /** Origins of the client's registered redirect URIs: who may frame the flow. */
  frameAncestors: string[];
  prefill: { email?: string; name?: string; username?: string };
}

/** The origins of a client's registered http(s) redirect URIs, without duplicates. */
export function redirectOrigins(redirectUris: readonly string[]): string[] {
  const origins = new Set<string>();
  for (const uri of redirectUris) {
    const url = URL.parse(uri);
    if (url && (url.protocol === 'https:' || url.protocol === 'http:')) origins.add(url.origin);
  }
  return [...origins];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The flow described by authorization parameters (an interaction's `params`, or the entry query),
 * for a client with `redirectUris`. Lenient on purpose: it decides how a page looks and where
 * messages may go; the entry has validated the parameters strictly before the flow started.
 */
export function flowFromParams(params: Record<string, unknown>, redirectUris: readonly string[]): EmbedFlow {
  const frameAncestors = redirectOrigins(redirectUris);
  const parentOrigin = text(params.parent_origin);
  const prefill: EmbedFlow['prefill'] = {};
  const email = text(params.prefill_email);
  const name = text(params.prefill_name);
  const username = text(params.prefill_username);
  if (email) prefill.email = email.slice(0, 254);
  if (name) prefill.name = name.slice(0, 100);
  if (username) prefill.username = username.slice(0, 40);
  return {
    theme: params.theme === 'dark' ? 'dark' : 'light',
    mode: params.mode === 'popup' ? 'popup' : 'frame',
    parentOrigin: parentOrigin && frameAncestors.includes(parentOrigin) ? parentOrigin : null,
    frameAncestors,
    prefill,
  };
}

/** True when authorization parameters belong to an embed flow. */
export const isEmbedParams = (params: Record<string, unknown> | undefined): boolean =>
  params?.response_mode === EMBED_RESPONSE_MODE;

const FLOW = 'embedFlow';

/** Responses whose cookies get the cross-site attributes (see cookies.ts); keyed by the response. */
const framedResponses = new WeakSet<ServerResponse>();

export const cookiesAreFramed = (res: ServerResponse): boolean => framedResponses.has(res);

/**
 * Marks the request as part of an embed flow: its pages may be framed by the client's origins
 * (no X-Frame-Options, no COOP, which would cut the popup's `window.opener`), errors are shown in
 * the frame, and, in the iframe, cookies are `SameSite=None; Secure; Partitioned`.
 */
export function markEmbed(ctx: Context, flow: EmbedFlow): void {
  ctx.state[FLOW] = flow;
  ctx.remove('X-Frame-Options');
  ctx.remove('Cross-Origin-Opener-Policy');
  ctx.set('Content-Security-Policy', `frame-ancestors ${flow.frameAncestors.join(' ') || "'none'"}`);
  if (flow.mode === 'frame') framedResponses.add(ctx.res);
}

export const embedFlowOf = (ctx: Context): EmbedFlow | undefined => ctx.state[FLOW] as EmbedFlow | undefined;

/** A message a page posts to the embedding page when its script runs (after onboarding:ready). */
export type EmbedMessage =
  | { type: 'authorization:allowed'; code: string; state?: string; iss: string }
  | { type: 'authorization:denied'; state?: string; iss: string }
  | { type: 'onboarding:error'; code: EmbedErrorCode; message: string }
  | { type: 'onboarding:needs-popup' };

export type EmbedErrorCode = 'SIGNUP_FAILED' | 'ONBOARDING_FAILED' | 'AUTHORIZATION_FAILED' | 'UNKNOWN';

/**
 * Layout options of an embed page: theme, framing by the client's origins, the embed script and
 * what it needs (target origin, mode, a message to post). Undefined outside an embed flow, so
 * callers can pass it to sendPage unconditionally.
 */
export function embedPageOptions(ctx: Context, message?: EmbedMessage): PageOptions | undefined {
  const flow = embedFlowOf(ctx);
  if (!flow) return undefined;
  const data: Record<string, string> = { mode: flow.mode };
  // Without a checked parent origin the script posts nothing at all (and gets nothing to post).
  if (flow.parentOrigin) {
    data['parent-origin'] = flow.parentOrigin;
    if (message) data.message = JSON.stringify(message);
  }
  return {
    theme: flow.theme,
    frameAncestors: flow.frameAncestors,
    script: PATHS.embedScript,
    data,
    bodyClass: 'embed',
  };
}

/** An error message for the embedding page's developer: plain text, at most 500 characters. */
export const errorMessage = (code: EmbedErrorCode, message: string): EmbedMessage => ({
  type: 'onboarding:error',
  code,
  message: message.slice(0, 500),
});
