import { assertEmailVerified } from '@sched/accounts/verification';
import { createApiKey, listApiKeys, revokeApiKey } from '@sched/db/queries/api-keys';
import { ForbiddenError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { PATHS } from '../paths.ts';
import { csrfFor, readForm, userPurpose } from '../web/forms.ts';
import { apiKeysPage } from './pages/api-keys.ts';
import { sendSettingsPage, shell } from '../web/shell.ts';
import { keepForReveal, takeReveal } from '../web/reveal.ts';
import { enforceUserRouteLimit } from '../web/route-limit.ts';
import type { SignedIn } from '../web/session.ts';

/**
 * API keys: the list of `GET /v2/api-keys` (hint, created, last used), create
 * (the key is shown once, through the same one-time reveal as a new client secret) and revoke,
 * with the same data functions as the API. Unverified accounts cannot create keys (403,
 * `Verify your e-mail address first`, the API's rule and message). Creations count against the
 * API's own limit (50 an hour per user, the same counter).
 */

/** The reveal record's subject (reveal.ts binds a secret to a user and a subject). */
const REVEAL_SUBJECT = 'settings:api-key';

const NOTICES: Record<string, string> = {
  created: 'API key created.',
  revoked: 'API key revoked. It no longer works.',
};

async function render(
  deps: AuthDeps,
  ctx: Context,
  signedIn: SignedIn,
  options: { status?: number; error?: string } = {},
): Promise<void> {
  const { user } = signedIn;
  const csrf = csrfFor(deps, ctx, userPurpose(user.id));
  const revealId = typeof ctx.query.reveal === 'string' ? ctx.query.reveal : undefined;
  const revealed = revealId ? await takeReveal(deps, revealId, user.id, REVEAL_SUBJECT) : null;
  const keys = await listApiKeys(deps.runtime.stores.db.knex, user.id);
  const key = ctx.query.notice;
  const notice = typeof key === 'string' && Object.hasOwn(NOTICES, key) ? NOTICES[key] : undefined;
  sendSettingsPage(
    ctx,
    options.status ?? 200,
    'API keys',
    shell(
      { signedIn, csrf, section: 'api-keys' },
      apiKeysPage({
        keys,
        csrf,
        emailVerified: user.emailVerifiedAt !== null,
        revealed: revealed?.secret,
        revealGone: revealId !== undefined && revealed === null,
        notice: options.error ? undefined : notice,
        error: options.error,
      }),
    ),
    { copyScript: revealed !== null },
  );
}

/** GET /auth/settings/api-keys[?reveal=]. */
export async function apiKeysList(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  await render(deps, ctx, signedIn);
}

/** POST /auth/settings/api-keys: a new key, then 303 to the list that shows it once. */
export async function createKey(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const { user } = signedIn;
  await readForm(deps, ctx, userPurpose(user.id));
  try {
    assertEmailVerified(user);
  } catch (error) {
    if (!(error instanceof ForbiddenError)) throw error;
    return render(deps, ctx, signedIn, { status: 403, error: error.message });
  }
  await enforceUserRouteLimit(deps, user.id, 'api-keys', 'API keys created');
  const key = await createApiKey(deps.runtime.stores.db.knex, user.id, signedIn.actor.audit);
  const reveal = await keepForReveal(deps, {
    userId: user.id,
    clientId: REVEAL_SUBJECT,
    secret: key.plain,
    hint: key.hint,
  });
  seeOther(ctx, `${PATHS.settingsApiKeys}?${new URLSearchParams({ notice: 'created', reveal })}`);
}

/** POST /auth/settings/api-keys/:keyId/revoke: someone else's or a revoked key is 404 on the list. */
export async function revokeKey(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const { user } = signedIn;
  await readForm(deps, ctx, userPurpose(user.id));
  const raw = (ctx as Context & { params?: Record<string, string> }).params?.keyId ?? '';
  const id = /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
  const revoked =
    Number.isSafeInteger(id) &&
    (await revokeApiKey(
      deps.runtime.stores.db.knex,
      deps.runtime.stores.tokenStore,
      user.id,
      id,
      signedIn.actor.audit,
    ));
  if (!revoked) return render(deps, ctx, signedIn, { status: 404, error: 'API key not found' });
  seeOther(ctx, `${PATHS.settingsApiKeys}?notice=revoked`);
}
