import { BadRequestError } from '@sched/kit/errors';
import type { OAuthClientWithSecrets } from '@sched/db/queries/oauth-clients';
import { redirectUrisReviewed } from '@sched/policy/agent-clients';
import type { Context, Next } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { singleQueryValue } from '../http/params.ts';
import { seeOther } from '../interaction/current.ts';
import { sendPage } from '../pages/layout.ts';
import { PATHS } from '../paths.ts';
import { COOKIE_CHECK } from '../embed-flow/cookies.ts';
import { EmbedParentOriginError, UNAPPROVED_AGENT_EMBED } from '../embed-flow/errors.ts';
import {
  EMBED_PARAMS,
  EMBED_RESPONSE_MODE,
  embedFlowOf,
  embedPageOptions,
  embedParamsSchema,
  flowFromParams,
  isEmbedParams,
  markEmbed,
} from '../embed-flow/flow.ts';
import { needsPopupPage } from './pages/needs-popup.ts';

const ENTRY = 'embedEntry';
const UNAPPROVED = 'embedUnapprovedAgent';
const RESUME = /^\/auth\/oauth2\/authorize\/([A-Za-z0-9_-]{1,256})$/;

/**
 * GET /auth/embed/onboarding (onboarding-embed README, "Protocol" 1) is an authorization request
 * like /auth/oauth2/authorize, run through the same checks (endpoints/authorize.ts: client,
 * approval, redirect_uri, then scope and code_challenge) and then by oidc-provider itself, so the
 * code at the end is an ordinary authorization code. This middleware, in front of those checks,
 * marks the request as an embed flow (framing, errors in the frame, cookies) and hands it to the
 * authorization endpoint; `embedAuthorization` (behind the checks) does the embed-only checks.
 *
 * It also recognises the flow's return to the authorization endpoint after each step
 * (`/auth/oauth2/authorize/:uid`), where oidc-provider sets the session cookie and, at the end,
 * answers through the embed response mode: those requests must be marked before it runs.
 */
export function embedRequests(deps: AuthDeps) {
  const enterEmbed = async (ctx: Context, next: Next) => {
    const clientId = singleQueryValue(ctx, 'client_id');
    const client = clientId ? await deps.loadClient(ctx.state, clientId) : null;
    markEmbed(ctx, flowFromParams(ctx.query as Record<string, unknown>, framingOrigins(client)));
    if (client && !redirectUrisReviewed(client.registration, client.reviewStatus))
      ctx.state[UNAPPROVED] = true;
    ctx.state[ENTRY] = ctx.originalUrl;
    ctx.path = PATHS.authorize;
    return next();
  };
  const resumeFlow = async (ctx: Context, next: Next, interactionUid: string) => {
    await markResumedFlow(deps, ctx, interactionUid);
    return next();
  };
  // Not async itself: every request passes through here, and most only go on.
  return function embedRequestsMiddleware(ctx: Context, next: Next) {
    if (ctx.method !== 'GET') return next();
    if (ctx.path === PATHS.embedOnboarding) return enterEmbed(ctx, next);
    const resume = RESUME.exec(ctx.path);
    return resume ? resumeFlow(ctx, next, resume[1]!) : next();
  };
}

async function markResumedFlow(deps: AuthDeps, ctx: Context, uid: string): Promise<void> {
  const interaction = await deps.provider.Interaction.find(uid).catch(() => undefined);
  const params = interaction?.params as Record<string, unknown> | undefined;
  if (!params || !isEmbedParams(params) || typeof params.client_id !== 'string') return;
  const client = await deps.loadClient(ctx.state, params.client_id);
  if (client) markEmbed(ctx, flowFromParams(params, framingOrigins(client)));
}

/**
 * The redirect URIs whose origins may frame the flow and receive its messages: none for an agent
 * no administrator approved, whose URIs anyone can choose (our sign-in and consent pages framed on
 * such a site would lose the address bar and invite clickjacking).
 */
const framingOrigins = (client: OAuthClientWithSecrets | null): readonly string[] =>
  client && redirectUrisReviewed(client.registration, client.reviewStatus) ? client.redirectUris : [];

/** The embed parameters of the entry, each given at most once, validated with zod. */
function checkEmbedParams(ctx: Context): void {
  const raw: Record<string, string> = {};
  for (const name of EMBED_PARAMS) {
    const value = singleQueryValue(ctx, name);
    if (value !== undefined) raw[name] = value;
  }
  const parsed = embedParamsSchema.safeParse(raw);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
    throw new BadRequestError(`Invalid embed parameters: ${names.join(', ')}.`);
  }
}

/**
 * Popup fallback (onboarding-embed README, "Protocol" 4): in the iframe, the entry first sets a
 * test cookie (with the flow's cross-site attributes) and sends the browser back to itself with a
 * marker. When the cookie does not come back, the browser refuses the frame its cookies: the page
 * asks the component for the popup. True when the flow can go on.
 */
function cookiesWork(ctx: Context, entryUrl: string): boolean {
  if (ctx.cookies.get(COOKIE_CHECK.cookie, { signed: false })) return true;
  if (ctx.query[COOKIE_CHECK.marker] === undefined) {
    ctx.cookies.set(COOKIE_CHECK.cookie, '1', {
      signed: false,
      httpOnly: true,
      path: PATHS.embedPrefix,
      maxAge: COOKIE_CHECK.maxAgeMs,
    });
    seeOther(ctx, `${entryUrl}${entryUrl.includes('?') ? '&' : '?'}${COOKIE_CHECK.marker}=1`);
    return false;
  }
  sendPage(
    ctx,
    200,
    'Continue in a new window',
    needsPopupPage(),
    embedPageOptions(ctx, { type: 'onboarding:needs-popup' }),
  );
  return false;
}

/**
 * Behind endpoints/authorize.ts: the request passed the authorization checks. Now the embed-only
 * ones (parent_origin is the origin of a registered redirect URI; theme, mode, prefill), the cookie
 * check, and the response mode that makes oidc-provider answer with a page posting the result to
 * the embedding page (response-mode.ts) instead of a redirect.
 */
export function embedAuthorization() {
  // Not async: every request passes through here, and most only go on (no promise of our own).
  return function embedAuthorizationMiddleware(ctx: Context, next: Next) {
    const entryUrl = ctx.state[ENTRY] as string | undefined;
    const flow = embedFlowOf(ctx);
    if (entryUrl === undefined || !flow || ctx.path !== PATHS.authorize) return next();
    if (!flow.parentOrigin)
      throw new EmbedParentOriginError(ctx.state[UNAPPROVED] === true ? UNAPPROVED_AGENT_EMBED : undefined);
    checkEmbedParams(ctx);
    if (flow.mode === 'frame' && !cookiesWork(ctx, entryUrl)) return;
    const query = { ...ctx.query };
    delete query[COOKIE_CHECK.marker];
    query.response_mode = EMBED_RESPONSE_MODE;
    ctx.query = query;
    return next();
  };
}
