import type { AnyRoute } from '../routing/route.ts';
import { schedulingRoutes } from './scheduling/index.ts';
import { adminRoutes } from './admin/index.ts';
import { apiKeyRoutes } from './api-keys/index.ts';
import { calendarRoutes } from './calendars/index.ts';
import { auditRoutes } from './audit/index.ts';
import { connectedAppRoutes } from './connected-apps/index.ts';
import { invitationRoutes } from './invitations/index.ts';
import { meRoutes } from './me/index.ts';
import { managedUserRoutes } from './managed-users/index.ts';
import { membershipRoutes } from './memberships/index.ts';
import { oauthClientRoutes } from './oauth-clients/index.ts';
import { rolePermissionRoutes } from './role-permissions/index.ts';
import { roleRoutes } from './roles/index.ts';
import { teamRoutes } from './teams/index.ts';

/**
 * Every route of the resource API. Each feature folder exports its list; add yours here
 * (one import, one spread). The OpenAPI document is generated from this same list.
 */
export const routes: readonly AnyRoute[] = [
  ...schedulingRoutes,
  ...meRoutes,
  ...connectedAppRoutes,
  ...invitationRoutes,
  ...apiKeyRoutes,
  ...calendarRoutes,
  ...teamRoutes,
  ...membershipRoutes,
  ...roleRoutes,
  ...rolePermissionRoutes,
  ...adminRoutes,
  ...oauthClientRoutes,
  ...managedUserRoutes,
  ...auditRoutes,
];
