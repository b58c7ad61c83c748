import type { AnyRoute } from '../../routing/route.ts';
import { createApiKeyRoute } from './create-api-key.ts';
import { deleteApiKeyRoute } from './delete-api-key.ts';
import { listApiKeysRoute } from './list-api-keys.ts';

export const apiKeyRoutes: readonly AnyRoute[] = [createApiKeyRoute, listApiKeysRoute, deleteApiKeyRoute];
