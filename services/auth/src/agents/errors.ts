import { AppError } from '@sched/kit/errors';

/**
 * An agent's Client ID Metadata Document cannot be used (fetch refused or failed, too big, not
 * JSON, client_id mismatch, a secret, another auth method). The authorization page shows it as a
 * page error, the token endpoint as `invalid_client` (endpoints/authorize.ts, endpoints/token.ts).
 */
export class AgentDocumentError extends AppError {
  constructor(reason: string) {
    super(400, 'invalid_client', `The client metadata document cannot be used: ${reason}`);
  }
}
