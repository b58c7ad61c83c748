import Router from '@koa/router';
import type { AuthDeps } from '../deps.ts';
import { showSignIn } from '../interaction/sign-in.ts';
import { PATHS } from '../paths.ts';
import { connectCalDavStep, saveCalendar, saveProfile } from './onboarding.ts';
import { embedScript } from './script.ts';

/**
 * The onboarding embed's own routes. Its entry is not here: GET /auth/embed/onboarding is an
 * authorization request (entry.ts); its sign-up, sign-in and consent are the ordinary interaction
 * routes, which render embed pages for embed flows.
 */
export function embedRoutes(deps: AuthDeps): Router {
  const router = new Router();
  const step = `${PATHS.interaction}/:uid`;
  router.get(`${step}/signin`, showSignIn(deps));
  router.post(`${step}/profile`, saveProfile(deps));
  router.post(`${step}/calendar`, saveCalendar(deps));
  router.post(`${step}/calendar/caldav`, connectCalDavStep(deps));
  router.get(PATHS.embedScript, embedScript);
  return router;
}
