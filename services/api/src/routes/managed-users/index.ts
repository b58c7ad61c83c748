import type { AnyRoute } from '../../routing/route.ts';
import {
  createManagedUserRoute,
  deleteManagedUserRoute,
  getManagedUserRoute,
  listManagedUsersRoute,
  updateManagedUserRoute,
} from './routes.ts';

/** The deprecated managed-user family (`x-svc-secret-key`). */
export const managedUserRoutes: readonly AnyRoute[] = [
  createManagedUserRoute,
  listManagedUsersRoute,
  getManagedUserRoute,
  updateManagedUserRoute,
  deleteManagedUserRoute,
];
