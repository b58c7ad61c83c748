import Router from '@koa/router';
import type { AuthDeps } from '../deps.ts';
import { PATHS } from '../paths.ts';
import { auditList } from './audit.ts';
import { clientDetail, clientsList, suspendAction } from './clients.ts';
import { type AdminHandler, adminPage, consoleHome } from './guard.ts';
import { organizationDetail, pbacAction, provisionMemberAction, removeMemberAction } from './organization.ts';
import { createOrganizationAction, newOrganizationPage, organizationsList } from './organizations.ts';
import {
  createResourceServerAction,
  deleteResourceServerAction,
  resourceServerDetail,
  resourceServersList,
} from './resource-servers.ts';
import { approveAction, rejectAction, reviewQueue } from './review.ts';
import { userAction, userDetail, usersList } from './users.ts';

/** The admin console and the client review queue (service administrators, /auth/admin/). */
export function adminRoutes(deps: AuthDeps): Router {
  const router = new Router();
  const admin = (handler: AdminHandler) => adminPage(deps, handler);
  // The console's own address opens its first section (signed out: sign-in; others: 403).
  router.get([PATHS.adminConsole, `${PATHS.adminConsole}/`], admin(consoleHome));
  router.get(PATHS.adminClients, reviewQueue(deps));
  router.post(`${PATHS.adminClients}/:clientId/approve`, approveAction(deps));
  router.post(`${PATHS.adminClients}/:clientId/reject`, rejectAction(deps));
  router.get(PATHS.adminUsers, admin(usersList));
  router.get(`${PATHS.adminUsers}/:userId`, admin(userDetail));
  for (const action of ['disable', 'enable', 'reset-link', 'grant-admin', 'remove-admin'] as const)
    router.post(`${PATHS.adminUsers}/:userId/${action}`, admin(userAction(action)));
  const org = `${PATHS.adminOrganizations}/:orgId`;
  router.get(PATHS.adminOrganizations, admin(organizationsList));
  router.post(PATHS.adminOrganizations, admin(createOrganizationAction));
  router.get(`${PATHS.adminOrganizations}/new`, admin(newOrganizationPage));
  router.get(org, admin(organizationDetail));
  router.post(`${org}/pbac`, admin(pbacAction));
  router.post(`${org}/members`, admin(provisionMemberAction));
  router.post(`${org}/members/:membershipId/remove`, admin(removeMemberAction));
  router.get(PATHS.adminAllClients, admin(clientsList));
  router.get(`${PATHS.adminAllClients}/:clientId`, admin(clientDetail));
  router.post(`${PATHS.adminAllClients}/:clientId/suspend`, admin(suspendAction));
  const server = `${PATHS.adminResourceServers}/:serverId`;
  router.get(PATHS.adminResourceServers, admin(resourceServersList));
  router.post(PATHS.adminResourceServers, admin(createResourceServerAction));
  router.get(server, admin(resourceServerDetail));
  router.post(`${server}/delete`, admin(deleteResourceServerAction));
  router.get(PATHS.adminAudit, admin(auditList));
  return router;
}
