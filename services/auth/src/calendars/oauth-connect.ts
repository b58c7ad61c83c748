import { CredentialsRefusedError, type OAuthCredentials } from '@sched/calendars/connector';
import { type OAuthCalendarProvider, oauthProviderFor } from '@sched/calendars/providers/oauth-provider';
import { pkcePair, ScopesNotGrantedError } from '@sched/calendars/providers/oauth-tokens';
import { findUserById } from '@sched/db/queries/users';
import { NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { singleQueryValue } from '../http/params.ts';
import { seeOther } from '../interaction/current.ts';
import { sendPage } from '../pages/layout.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, readForm } from '../web/forms.ts';
import { signedInUser } from '../web/session.ts';
import {
  type ConnectReturn,
  peekTicket,
  saveConnectState,
  spendTicket,
  takeConnectState,
} from './connect-state.ts';
import { calendarService, oauthFetch } from './library.ts';
import { connectConfirmPage } from './pages/connect-confirm.ts';
import { type ConnectProblem, connectResultPage } from './pages/connect-result.ts';

/**
 * Google and Microsoft connections (docs/calendars.md "The flow"): our server is the OAuth client.
 * The start sends the browser to the provider's authorization endpoint (code flow, PKCE S256, a
 * state bound to the user and this browser, offline access); the callback checks the state,
 * exchanges the code, reads the account and saves the connection through the calendar library. A
 * denial or a failure returns to where the user started with a message; nothing is saved then.
 */

export const callbackPath = (provider: string) => `${PATHS.calendarOAuth}/${provider}/callback`;
export const redirectUriOf = (deps: AuthDeps, provider: string) => `${deps.issuer}${callbackPath(provider)}`;

/** The configured provider named by the path, else 404 (a provider not configured is not offered). */
export function configuredProvider(deps: AuthDeps, ctx: Context): OAuthCalendarProvider {
  const id = (ctx as Context & { params?: Record<string, string> }).params?.provider ?? '';
  const provider = oauthProviderFor(deps.runtime.config, id);
  if (!provider) throw new NotFoundError('This calendar provider is not offered here');
  return provider;
}

/** Sends the browser to the provider to authorize us for `userId`. */
export async function startOAuthConnect(
  deps: AuthDeps,
  ctx: Context,
  provider: OAuthCalendarProvider,
  userId: number,
  returnTo: ConnectReturn,
): Promise<void> {
  const { verifier, challenge } = pkcePair();
  const state = await saveConnectState(deps, ctx, { userId, provider: provider.id, verifier, returnTo });
  seeOther(
    ctx,
    provider.authorizationUrl({
      redirectUri: redirectUriOf(deps, provider.id),
      state,
      codeChallenge: challenge,
    }),
  );
}

const connectPurpose = (provider: string) => `calendar-connect:${provider}`;

/**
 * GET /auth/calendars/connect/:provider?ticket=: the onboarding step's window opens here. The
 * ticket is not spent: the page names its account and asks to go on (a link sent to someone else
 * would connect their calendar to the sender's account without it).
 */
export function confirmFromTicket(deps: AuthDeps) {
  return async function confirmFromTicketHandler(ctx: Context) {
    ctx.set('Cache-Control', 'no-store');
    const provider = configuredProvider(deps, ctx);
    const ticket = singleQueryValue(ctx, 'ticket') ?? '';
    const userId = await peekTicket(deps, ticket, provider.id);
    const user = userId === null ? null : await findUserById(deps.runtime.stores.db.knex, userId);
    if (!user) return finish(ctx, provider, 'onboarding', 'expired');
    const view = {
      label: provider.label,
      email: user.email,
      action: `${PATHS.calendarConnect}/${provider.id}`,
      ticket,
      csrf: csrfFor(deps, ctx, connectPurpose(provider.id)),
    };
    sendPage(ctx, 200, `Connect ${provider.label}`, connectConfirmPage(view));
  };
}

/** POST /auth/calendars/connect/:provider (the confirmation's form): spends the ticket, then to the provider. */
export function startFromTicket(deps: AuthDeps) {
  return async function startFromTicketHandler(ctx: Context) {
    const provider = configuredProvider(deps, ctx);
    const form = await readForm(deps, ctx, connectPurpose(provider.id));
    const userId = await spendTicket(deps, form.ticket ?? '', provider.id);
    if (userId === null) return finish(ctx, provider, 'onboarding', 'expired');
    await startOAuthConnect(deps, ctx, provider, userId, 'onboarding');
  };
}

/** Where the user lands after the flow: the settings page (with a notice) or the window's own page. */
function finish(
  ctx: Context,
  provider: OAuthCalendarProvider,
  returnTo: ConnectReturn,
  problem?: ConnectProblem,
) {
  if (returnTo === 'settings') {
    const query: Record<string, string> = problem
      ? { problem, provider: provider.id }
      : { connected: provider.id };
    return seeOther(ctx, `${PATHS.settingsCalendars}?${new URLSearchParams(query)}`);
  }
  sendPage(
    ctx,
    problem ? 400 : 200,
    problem ? 'Calendar not connected' : 'Calendar connected',
    connectResultPage(provider.label, problem),
  );
}

/** GET /auth/calendars/oauth/:provider/callback?code=&state= (or ?error=access_denied&state=). */
export function oauthCallback(deps: AuthDeps) {
  return async function oauthCallbackHandler(ctx: Context) {
    ctx.set('Cache-Control', 'no-store');
    const provider = configuredProvider(deps, ctx);
    const record = await takeConnectState(deps, ctx, singleQueryValue(ctx, 'state') ?? '');
    if (!record || record.provider !== provider.id) return finish(ctx, provider, 'settings', 'expired');
    const { returnTo } = record;
    if (returnTo === 'settings') {
      // The settings flow stays with the account that started it.
      const signedIn = await signedInUser(deps, ctx);
      if (signedIn?.user.id !== record.userId) return finish(ctx, provider, returnTo, 'expired');
    }
    const error = singleQueryValue(ctx, 'error');
    if (error !== undefined)
      return finish(ctx, provider, returnTo, error === 'access_denied' ? 'denied' : 'refused');
    const code = singleQueryValue(ctx, 'code');
    if (!code) return finish(ctx, provider, returnTo, 'refused');
    const fetchOut = oauthFetch(deps);
    try {
      let credentials: OAuthCredentials = await provider.exchangeCode(fetchOut, {
        code,
        codeVerifier: record.verifier,
        redirectUri: redirectUriOf(deps, provider.id),
      });
      const account = await provider
        .connector({
          credentials,
          fetch: fetchOut,
          saveCredentials: async (fresh) => {
            credentials = fresh;
          },
        })
        .account();
      await calendarService(deps).saveOAuthConnection(record.userId, provider.id, account, credentials);
    } catch (caught) {
      ctx.state.log?.warn(
        { provider: provider.id, err: { name: (caught as Error).name, message: (caught as Error).message } },
        'calendar connect failed',
      );
      return finish(
        ctx,
        provider,
        returnTo,
        caught instanceof ScopesNotGrantedError
          ? 'partial'
          : caught instanceof CredentialsRefusedError
            ? 'refused'
            : 'unavailable',
      );
    }
    finish(ctx, provider, returnTo);
  };
}
