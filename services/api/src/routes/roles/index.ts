import type { AnyRoute } from '../../routing/route.ts';
import { createRoleRoute } from './create-role.ts';
import { deleteRoleRoute } from './delete-role.ts';
import { getRoleRoute } from './get-role.ts';
import { listRolesRoute } from './list-roles.ts';
import { updateRoleRoute } from './update-role.ts';

export const roleRoutes: readonly AnyRoute[] = [
  createRoleRoute,
  listRolesRoute,
  getRoleRoute,
  updateRoleRoute,
  deleteRoleRoute,
];
