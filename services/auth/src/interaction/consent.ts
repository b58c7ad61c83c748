import { giveConsent } from '@sched/db/queries/consents';
import { findUserById } from '@sched/db/queries/users';
import { BadRequestError } from '@sched/kit/errors';
import type { Context } from 'koa';
import type { AuthDeps } from '../deps.ts';
import { InteractionExpiredError } from '../errors.ts';
import { CSRF_FIELD, issueCsrfToken, verifyCsrfToken } from '../http/csrf.ts';
import { readParams } from '../http/params.ts';
import { userAuditContext } from '../http/audit-context.ts';
import { type AgentFacts, consentPage } from '../pages/consent.ts';
import type { OAuthClient } from '@sched/db/queries/oauth-clients';
import { agentScopeCeiling, isAgentRegistration, isLoopbackRedirect } from '@sched/policy/agent-clients';
import { embedPageOptions } from '../embed-flow/flow.ts';
import { joinEmbedFlow } from './embed-flow.ts';
import { progress } from '../embed-flow/pages/progress.ts';
import { sendPage } from '../pages/layout.ts';
import { interactionPath } from '../paths.ts';
import { createGrant } from '../provider/grants.ts';
import { requestedResources } from '../provider/resources.ts';
import { accumulatedScope, grantableScopes } from '../provider/step-up.ts';
import { scopeList } from '../provider/scopes.ts';
import { currentInteraction, finishInteraction, type Interaction, requestOf, seeOther } from './current.ts';
import { insufficientPermissions, scopesUserCannotGrant } from '../provider/grant-permissions.ts';

async function loadParties(deps: AuthDeps, ctx: Context, interaction: Interaction) {
  const { clientId, scope, redirectUri } = requestOf(interaction);
  const accountId = interaction.session?.accountId;
  const client = await deps.loadClient(ctx.state, clientId);
  const user = accountId ? await findUserById(deps.runtime.stores.db.knex, Number(accountId)) : null;
  if (!client || !user || !accountId) throw new InteractionExpiredError();
  return { client, user, accountId, scope, redirectUri };
}

/** What the consent page says about an agent client (nothing for clients made in settings). */
function agentFactsOf(client: OAuthClient, redirectUri: string): AgentFacts | undefined {
  if (!isAgentRegistration(client.registration)) return undefined;
  return {
    unverified: client.reviewStatus !== 'APPROVED',
    clientIdHost: client.registration === 'metadata_document' ? (URL.parse(client.id)?.host ?? null) : null,
    // A private-use scheme (com.example.agent:/cb) has no host: the page names the whole URI.
    redirectHost: URL.parse(redirectUri)?.host || redirectUri,
    loopback: isLoopbackRedirect(redirectUri),
  };
}

/**
 * A user who cannot grant what the client asks for never sees Allow: the request goes back to the
 * client with access_denied (checked on showing the page and again on Allow). True when it did.
 */
async function refusedForPermissions(
  deps: AuthDeps,
  ctx: Context,
  parties: { accountId: string; scope: string },
): Promise<boolean> {
  const beyond = await scopesUserCannotGrant(
    deps.runtime.stores.db.knex,
    Number(parties.accountId),
    parties.scope,
  );
  if (beyond.length === 0) return false;
  await finishInteraction(deps, ctx, insufficientPermissions(beyond), false);
  return true;
}

/**
 * The scope this consent grants: the request's, widened by step-up (provider/step-up.ts) when it
 * names a resource. A widened scope is stored in the interaction, so the code carries it too.
 */
async function stepUpScope(
  deps: AuthDeps,
  interaction: Interaction,
  parties: Awaited<ReturnType<typeof loadParties>>,
): Promise<string> {
  const scope = await accumulatedScope(deps.runtime.stores.db.knex, {
    userId: Number(parties.accountId),
    clientId: parties.client.id,
    clientScopes: grantableScopes(parties.client, deps.runtime.config.agents.pendingScopes),
    params: interaction.params,
  });
  if (scope === parties.scope) return scope;
  interaction.params.scope = scope;
  await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
  return scope;
}

export async function renderConsent(deps: AuthDeps, ctx: Context, interaction: Interaction): Promise<void> {
  const parties = await loadParties(deps, ctx, interaction);
  if (await refusedForPermissions(deps, ctx, parties)) return;
  const { client, user, scope } = parties;
  const options = embedPageOptions(ctx);
  const agent = agentFactsOf(client, parties.redirectUri);
  sendPage(
    ctx,
    200,
    `Allow ${client.name}`,
    consentPage({
      uid: interaction.uid,
      csrf: issueCsrfToken(ctx, deps.csrf, interaction.uid),
      client,
      account: user.email,
      scopes: scopeList(scope),
      ...(options ? { header: progress('Authorize') } : {}),
      ...(agent ? { agent } : {}),
    }),
    options,
  );
}

/**
 * POST /auth/interaction/:uid/consent with decision=allow|deny. Allow creates this authorization's
 * grant (legacy status recorded), remembers the consent for the user, client and scopes (audited as
 * `grant.created`), and returns
 * to the authorization request, which redirects to the client with the code. Deny returns
 * access_denied to the client.
 */
export function consent(deps: AuthDeps) {
  return async function consentHandler(ctx: Context) {
    const interaction = await currentInteraction(deps, ctx);
    const embedded = (await joinEmbedFlow(deps, ctx, interaction)) !== undefined;
    const form = await readParams(ctx, { json: false });
    verifyCsrfToken(ctx, deps.csrf, interaction.uid, form[CSRF_FIELD]);
    if (interaction.prompt.name !== 'consent') return seeOther(ctx, interactionPath(interaction.uid));

    if (form.decision === 'deny') {
      const denied = { error: 'access_denied', error_description: 'The user denied the request' };
      return finishInteraction(deps, ctx, denied, false);
    }
    if (form.decision !== 'allow') throw new BadRequestError('Choose Allow or Deny.');

    const parties = await loadParties(deps, ctx, interaction);
    // The embed flow authorizes only once onboarding is done: an early Allow goes back to the step.
    if (embedded && parties.user.onboardingStep !== 'complete') {
      return seeOther(ctx, interactionPath(interaction.uid));
    }
    if (await refusedForPermissions(deps, ctx, parties)) return;
    const { client, accountId } = parties;
    const scope = await stepUpScope(deps, interaction, parties);
    if (beyondAgentCeiling(deps, client, scope)) throw new InteractionExpiredError();
    const grant = await createGrant(deps.provider, {
      accountId,
      clientId: client.id,
      scope,
      legacy: client.isLegacy,
      resources: requestedResources(interaction.params),
    });
    const userId = Number(accountId);
    await giveConsent(
      deps.runtime.stores.db.knex,
      userAuditContext(ctx, userId),
      userId,
      client.id,
      scopeList(scope),
    );
    await finishInteraction(deps, ctx, { consent: { grantId: grant.jti } }, true);
  };
}

/**
 * The authorization request was narrowed to the agent's ceiling (endpoints/authorize.ts); checked
 * again on Allow, in case the agent's review state changed while the page was open (a rejected or
 * re-suspended agent grants nothing beyond it).
 */
function beyondAgentCeiling(deps: AuthDeps, client: OAuthClient, scope: string): boolean {
  if (!isAgentRegistration(client.registration)) return false;
  const ceiling = agentScopeCeiling(client.reviewStatus, deps.runtime.config.agents.pendingScopes);
  return scopeList(scope).some((granted) => !ceiling.includes(granted));
}
