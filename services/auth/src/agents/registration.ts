import { recordAgentClient } from '@sched/db/queries/agent-clients';
import { BadRequestError, NotFoundError } from '@sched/kit/errors';
import { assertFitBody } from '@sched/kit/http/unfit-text';
import { APPROVED_AGENT_SCOPES } from '@sched/policy/agent-clients';
import { enforceLimit } from '@sched/runtime/rate-limit';
import type { Runtime } from '@sched/runtime/runtime';
import type { Context, Next } from 'koa';
import type { RecordRegisteredClient } from '../provider/adapter.ts';
import { BODY_LIMIT_BYTES, decodeUtf8, readRaw, refuseContentEncoding } from '../http/params.ts';
import { replayRawBody } from '../http/replay-body.ts';
import { PATHS } from '../paths.ts';

const httpsOrNull = (value: unknown): string | null =>
  typeof value === 'string' && URL.parse(value)?.protocol === 'https:' ? value : null;

/**
 * Where oidc-provider's dynamic registration (RFC 7591) lands: a public agent client, PENDING like
 * every unknown agent (docs/agents.md), without an owner. Its id is a hash of the registration
 * (provider/agent-options.ts), so a repeated identical registration finds the row it made and
 * leaves it, review state included, as it is.
 */
export function recordRegisteredClient(runtime: Runtime): RecordRegisteredClient {
  return async (clientId, metadata) => {
    const redirectUris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as string[]) : [];
    await recordAgentClient(runtime.stores.db.knex, runtime.stores.tokenStore, {
      id: clientId,
      registration: 'dynamic',
      name: typeof metadata.client_name === 'string' ? metadata.client_name : 'Unnamed agent',
      redirectUris,
      scopes: [...APPROVED_AGENT_SCOPES],
      reviewStatus: 'PENDING',
      logo: httpsOrNull(metadata.logo_uri),
      websiteUrl: httpsOrNull(metadata.client_uri),
    });
  };
}

/**
 * POST /v2/auth/oauth2/register: a 404 unless DCR_ENABLED (and AGENT_CLIENTS is not off), then
 * rate-limited per client address (`client-registration` of RATE_LIMITS) before oidc-provider
 * validates and stores the registration.
 */
export function registrationEndpoint(runtime: Runtime) {
  const { agents, rateLimits } = runtime.config;
  const enabled = agents.dynamicRegistration && agents.policy !== 'off';
  return async function registrationEndpointMiddleware(ctx: Context, next: Next) {
    if (ctx.path !== PATHS.register) return next();
    if (!enabled) throw new NotFoundError(`Nothing here: ${ctx.method} ${ctx.path}`);
    if (ctx.method === 'POST') {
      await enforceLimit(
        runtime.stores.tokenStore,
        `register:ip:${ctx.ip}`,
        rateLimits['client-registration'],
        'client registrations',
        ctx.res,
      );
      await checkRegistrationBody(ctx);
    }
    await next();
  };
}

/**
 * The registration's body as every other endpoint here takes bodies (hostile input is a 400,
 * never stored or a 500): unencoded, UTF-8, and no NUL or lone surrogate anywhere, member names
 * and members oidc-provider would drop included. oidc-provider then reads the same bytes; a body
 * that is not JSON is left to its own answer (only application/json is accepted there).
 */
async function checkRegistrationBody(ctx: Context): Promise<void> {
  refuseContentEncoding(ctx);
  if (!ctx.is('application/json')) return;
  const charset = ctx.request.charset.toLowerCase();
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8')
    throw new BadRequestError('A registration is JSON in UTF-8');
  const raw = await readRaw(ctx, BODY_LIMIT_BYTES);
  let body: unknown;
  try {
    body = JSON.parse(decodeUtf8(raw));
  } catch (error) {
    if (error instanceof BadRequestError) throw error;
    throw new BadRequestError('Malformed JSON body');
  }
  assertFitBody(body);
  replayRawBody(ctx, raw);
}
