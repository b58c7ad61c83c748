import type { AnyRoute } from '../../routing/route.ts';
import { listAuditEventsRoute } from './audit-events.ts';
import { createOrganizationRoute } from './create-organization.ts';
import { createResourceServerRoute } from './create-resource-server.ts';
import { createUserRoute } from './create-user.ts';
import { deleteResourceServerRoute } from './delete-resource-server.ts';
import { listResourceServersRoute } from './list-resource-servers.ts';
import { provisionMembershipRoute } from './provision-membership.ts';
import { updateOrganizationRoute } from './update-organization.ts';

export const adminRoutes: readonly AnyRoute[] = [
  createUserRoute,
  createOrganizationRoute,
  updateOrganizationRoute,
  provisionMembershipRoute,
  createResourceServerRoute,
  listResourceServersRoute,
  deleteResourceServerRoute,
  listAuditEventsRoute,
];
