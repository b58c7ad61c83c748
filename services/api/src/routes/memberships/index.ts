import type { AnyRoute } from '../../routing/route.ts';
import { createMembershipRoutes } from './create-membership.ts';
import { deleteMembershipRoutes } from './delete-membership.ts';
import { getMembershipRoutes } from './get-membership.ts';
import { listMembershipRoutes } from './list-memberships.ts';
import { updateMembershipRoutes } from './update-membership.ts';

export const membershipRoutes: readonly AnyRoute[] = [
  ...createMembershipRoutes,
  ...listMembershipRoutes,
  ...getMembershipRoutes,
  ...updateMembershipRoutes,
  ...deleteMembershipRoutes,
];
