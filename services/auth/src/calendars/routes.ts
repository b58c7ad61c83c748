import Router from '@koa/router';
import type { AuthDeps } from '../deps.ts';
import { PATHS } from '../paths.ts';
import { confirmFromTicket, oauthCallback, startFromTicket } from './oauth-connect.ts';

/** The Google / Microsoft connect flow's own routes (the settings page starts it by POST, settings/routes.ts). */
export function calendarConnectRoutes(deps: AuthDeps): Router {
  const router = new Router();
  router.get(`${PATHS.calendarConnect}/:provider`, confirmFromTicket(deps));
  router.post(`${PATHS.calendarConnect}/:provider`, startFromTicket(deps));
  router.get(`${PATHS.calendarOAuth}/:provider/callback`, oauthCallback(deps));
  return router;
}
