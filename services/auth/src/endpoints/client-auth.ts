import type { OAuthClientWithSecrets } from '@sched/db/queries/oauth-clients';
import type { AgentClientPolicy } from '@sched/kit/config';
import { unfitTextReason } from '@sched/kit/http/unfit-text';
import { OAuthError } from '../errors.ts';
import type { Params } from '../http/params.ts';
import { secretMatches } from '../provider/clients.ts';
import { reviewRefusal } from './client-review.ts';
import { tokenErrors } from './token-errors.ts';

/** Who the request says it is: client_id and secret from HTTP Basic or from the body (RFC 6749 §2.3.1). */
export interface PresentedClient {
  clientId: string | undefined;
  secret: string | undefined;
  /** HTTP Basic was used: 401 answers then carry a `WWW-Authenticate: Basic` challenge. */
  basic: boolean;
}

/** The one answer for Basic credentials that are not well-formed text (bad encoding, NUL, lone surrogate). */
const badlyEncodedCredentials = () =>
  new OAuthError(
    400,
    'invalid_request',
    'client credentials in the Authorization header are not properly encoded',
  );

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The base64 payload as UTF-8; invalid bytes are refused (a lenient decode would turn them into U+FFFD). */
function decodeBasicPayload(base64: string): string {
  try {
    return strictUtf8.decode(Buffer.from(base64, 'base64'));
  } catch {
    throw badlyEncodedCredentials();
  }
}

/**
 * One side of `client_id:client_secret`, percent-decoded. Text that may not enter anywhere
 * (unfit-text.ts: NUL, lone surrogate) is a 400 here too, raw or percent-encoded, rather than a
 * client look-up that can only fail.
 */
function decodeBasicPart(part: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(part.replace(/\+/g, '%20'));
  } catch {
    throw badlyEncodedCredentials();
  }
  if (unfitTextReason(decoded) !== null) throw badlyEncodedCredentials();
  return decoded;
}

function parseBasic(header: string): { clientId: string; secret: string } {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/i.exec(header.trim());
  if (!match) throw new OAuthError(400, 'invalid_request', 'Authorization header must use the Basic scheme');
  const decoded = decodeBasicPayload(match[1]!);
  const colon = decoded.indexOf(':');
  if (colon === -1)
    throw new OAuthError(400, 'invalid_request', 'Authorization header must carry client_id:client_secret');
  return {
    clientId: decodeBasicPart(decoded.slice(0, colon)),
    secret: decodeBasicPart(decoded.slice(colon + 1)),
  };
}

export function presentedClient(authorization: string, params: Params): PresentedClient {
  if (!authorization) {
    return {
      clientId: params.client_id || undefined,
      secret: params.client_secret || undefined,
      basic: false,
    };
  }
  const basic = parseBasic(authorization);
  if (params.client_secret) {
    throw new OAuthError(
      400,
      'invalid_request',
      'client authentication must only be provided using one mechanism',
    );
  }
  if (params.client_id && params.client_id !== basic.clientId) {
    throw new OAuthError(
      400,
      'invalid_request',
      'client_id in the body differs from the Authorization header',
    );
  }
  return { clientId: basic.clientId || undefined, secret: basic.secret || undefined, basic: true };
}

export const basicChallenge = (
  issuer: string,
  presented: PresentedClient,
): Record<string, string> | undefined =>
  presented.basic ? { 'WWW-Authenticate': `Basic realm="${issuer}"` } : undefined;

/**
 * The client checks, in order: the client exists; a confidential client proves one of its
 * active secrets (a public client presents none); the client may be used in its review state
 * (APPROVED; or a PENDING agent under AGENT_CLIENTS=review: client-review.ts) unless
 * `anyReviewStatus` (revoking tokens stays possible while a client is back in review).
 */
export function authenticateClient(
  client: OAuthClientWithSecrets | null,
  presented: PresentedClient,
  challenge: Record<string, string> | undefined,
  options: { anyReviewStatus?: boolean; agentPolicy?: AgentClientPolicy } = {},
): OAuthClientWithSecrets {
  if (!client) throw tokenErrors.clientNotFound(challenge);
  const confidential = client.clientType === 'confidential';
  if (confidential && (!presented.secret || !secretMatches(presented.secret, client.activeSecretHashes))) {
    throw tokenErrors.invalidClientCredentials(challenge);
  }
  if (!confidential && (presented.secret !== undefined || presented.basic)) {
    throw tokenErrors.invalidClientCredentials(challenge);
  }
  if (options.anyReviewStatus) return client;
  const refusal = reviewRefusal(client, options.agentPolicy ?? 'review');
  if (refusal === 'unknown') throw tokenErrors.clientNotFound(challenge);
  // A 401 after HTTP Basic carries its challenge, whatever the error (RFC 7235 section 3.1).
  if (refusal === 'pending') throw tokenErrors.clientNotApproved(challenge);
  if (refusal === 'rejected') throw tokenErrors.clientRejected(challenge);
  return client;
}
