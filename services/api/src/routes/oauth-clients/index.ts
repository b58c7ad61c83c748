import type { AnyRoute } from '../../routing/route.ts';
import { adminListClientsRoute, approveClientRoute, rejectClientRoute } from './admin.ts';
import {
  createClientRoute,
  deleteClientRoute,
  getClientRoute,
  listClientsRoute,
  updateClientRoute,
} from './crud.ts';
import { revokeClientTokensRoute } from './revoke-tokens.ts';
import { createSecretRoute, listSecretsRoute, revokeSecretRoute } from './secrets.ts';

/** OAuth-client management (owner's API key) and the admin review (service administrators). */
export const oauthClientRoutes: readonly AnyRoute[] = [
  createClientRoute,
  listClientsRoute,
  getClientRoute,
  updateClientRoute,
  deleteClientRoute,
  createSecretRoute,
  listSecretsRoute,
  revokeSecretRoute,
  revokeClientTokensRoute,
  adminListClientsRoute,
  approveClientRoute,
  rejectClientRoute,
];
