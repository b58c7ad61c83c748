import { CONNECTED_APP_NOT_FOUND, disconnectApp, listConnectedApps } from '@sched/clients/connected-apps';
import { NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, readForm, userPurpose } from '../web/forms.ts';
import { connectedAppsPage } from './pages/connected-apps.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import type { SignedIn } from '../web/session.ts';

/**
 * Connected apps: the list of `GET /v2/me/connected-apps` and its Revoke (`DELETE
 * /v2/me/connected-apps/{clientId}`), through the same `@sched/clients/connected-apps` calls: every
 * token of the user for the app ends, and the next authorization asks for consent again.
 */

async function render(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  options: { status?: number; error?: string } = {},
): Promise<void> {
  const csrf = csrfFor(deps, ctx, userPurpose(signedIn.user.id));
  const apps = await listConnectedApps(deps.runtime, signedIn.user.id);
  const notice =
    !options.error && ctx.query.notice === 'revoked' ? 'Access revoked. The app was signed out.' : undefined;
  sendSettingsPage(
    ctx,
    options.status ?? 200,
    'Connected apps',
    shell(
      { signedIn, csrf, section: 'connected-apps' },
      connectedAppsPage({ apps, csrf, notice, error: options.error }),
    ),
  );
}

/** GET /auth/settings/connected-apps. */
export async function connectedAppsList(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  await render(deps, ctx, signedIn);
}

/** POST /auth/settings/connected-apps/:clientId/revoke: 303 to the list; unknown: 404 on the list. */
export async function revokeConnectedApp(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  await readForm(deps, ctx, userPurpose(signedIn.user.id));
  const clientId = (ctx as Context & { params?: Record<string, string> }).params?.clientId ?? '';
  try {
    await disconnectApp(deps.runtime, signedIn.user.id, clientId, signedIn.actor.audit);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return render(deps, ctx, signedIn, { status: 404, error: CONNECTED_APP_NOT_FOUND });
  }
  seeOther(ctx, `${PATHS.settingsConnectedApps}?notice=revoked`);
}
