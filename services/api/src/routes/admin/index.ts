import type { AnyRoute } from '../../routing/route.ts';
import { createOrganizationRoute } from './create-organization.ts';
import { createUserRoute } from './create-user.ts';
import { provisionMembershipRoute } from './provision-membership.ts';
import { updateOrganizationRoute } from './update-organization.ts';

export const adminRoutes: readonly AnyRoute[] = [
  createUserRoute,
  createOrganizationRoute,
  updateOrganizationRoute,
  provisionMembershipRoute,
];
