import type { AnyRoute } from '../../routing/route.ts';
import { addPermissionsRoute } from './add-permissions.ts';
import { listPermissionsRoute } from './list-permissions.ts';
import { removePermissionRoute } from './remove-permission.ts';
import { removePermissionsRoute } from './remove-permissions.ts';
import { replacePermissionsRoute } from './replace-permissions.ts';

export const rolePermissionRoutes: readonly AnyRoute[] = [
  addPermissionsRoute,
  listPermissionsRoute,
  replacePermissionsRoute,
  removePermissionsRoute,
  removePermissionRoute,
];
