import { generateSecret, revokeSecret } from '@sched/clients/secrets';
import { idParam } from '@sched/clients/schemas';
import { NotFoundError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { seeOther } from '../interaction/current.ts';
import { clientIdOf } from '../web/clients.ts';
import { isShownOnPage, renderDetail } from './clients.ts';
import { readForm, userPurpose } from '../web/forms.ts';
import { clientPath } from './pages/client-list.ts';
import { keepForReveal } from '../web/reveal.ts';
import { enforceUserRouteLimit } from '../web/route-limit.ts';
import type { SignedIn } from '../web/session.ts';

/**
 * Secret actions of the client page. A refusal the owner can act on (a third secret, the last
 * secret, a public client) is shown on the client's page with 400 and the library's exact message.
 */

export async function generate(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const clientId = clientIdOf(ctx);
  await readForm(deps, ctx, userPurpose(signedIn.user.id));
  await enforceUserRouteLimit(deps, signedIn.user.id, 'client-secrets', 'client secrets generated');
  try {
    const created = await generateSecret(deps.runtime, signedIn.actor, clientId);
    const reveal = await keepForReveal(deps, {
      userId: signedIn.user.id,
      clientId,
      secret: created.plain,
      hint: created.hint,
    });
    seeOther(ctx, `${clientPath(clientId)}?${new URLSearchParams({ notice: 'secret-created', reveal })}`);
  } catch (error) {
    if (!isShownOnPage(error)) throw error;
    await renderDetail(deps, ctx, signedIn, clientId, { status: error.status, error: error.message });
  }
}

export async function revoke(deps: AuthDeps, ctx: Context, signedIn: SignedIn): Promise<void> {
  const clientId = clientIdOf(ctx);
  const secretId = idParam.safeParse((ctx as Context & { params?: Record<string, string> }).params?.secretId);
  if (!secretId.success) throw new NotFoundError('Client secret not found');
  await readForm(deps, ctx, userPurpose(signedIn.user.id));
  try {
    await revokeSecret(deps.runtime, signedIn.actor, clientId, secretId.data);
    seeOther(ctx, `${clientPath(clientId)}?notice=secret-revoked`);
  } catch (error) {
    if (!isShownOnPage(error)) throw error;
    await renderDetail(deps, ctx, signedIn, clientId, { status: error.status, error: error.message });
  }
}
