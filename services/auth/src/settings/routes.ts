import Router from '@koa/router';
import type { AuthDeps } from '../deps.ts';
import { PATHS } from '../paths.ts';
import { settingsSignIn, settingsSignOut, showAccount, showSettingsSignIn } from './account.ts';
import { signedInAction } from './actions.ts';
import { apiKeysList, createKey, revokeKey } from './api-keys.ts';
import { create, deletePage, detailPage, editPage, listPage, newPage, remove, update } from './clients.ts';
import {
  calendarsList,
  connectCalDavAction,
  disconnectAction,
  saveSelectionAction,
  startConnectAction,
} from './calendars.ts';
import { connectedAppsList, revokeConnectedApp } from './connected-apps.ts';
import { copyScript } from './copy-script.ts';
import { deleteAccountAction, deleteAccountForm } from './delete-account.ts';
import { answerInvitation, invitationsList } from './invitations.ts';
import { changePassword, passwordForm } from './password.ts';
import { profileForm, resendVerificationEmail, saveProfile } from './profile.ts';
import { generate, revoke } from './secrets.ts';
import { timeZoneScript } from './time-zones.ts';
import { signedInPage } from '../web/signed-in.ts';
import { settingsSignUp, showSettingsSignUp } from './sign-up.ts';

/** The settings pages (signed-in users). */
export function settingsRoutes(deps: AuthDeps): Router {
  const router = new Router();
  const page = (handler: Parameters<typeof signedInPage>[1]) => signedInPage(deps, handler);
  const client = `${PATHS.settingsClients}/:clientId`;
  router.get(PATHS.settingsScript, copyScript);
  router.get(PATHS.settingsTimeZoneScript, timeZoneScript);
  router.get(PATHS.settingsSignIn, showSettingsSignIn(deps));
  router.post(PATHS.settingsSignIn, settingsSignIn(deps));
  router.post(PATHS.settingsSignOut, settingsSignOut(deps));
  router.get(PATHS.settingsSignUp, showSettingsSignUp(deps));
  router.post(PATHS.settingsSignUp, settingsSignUp(deps));
  router.get(PATHS.settings, page(showAccount));
  router.get(PATHS.settingsProfile, page(profileForm));
  router.post(PATHS.settingsProfile, page(saveProfile));
  router.post(
    PATHS.settingsVerificationEmail,
    signedInAction(deps, PATHS.settingsProfile, resendVerificationEmail),
  );
  router.get(PATHS.settingsPassword, page(passwordForm));
  router.post(PATHS.settingsPassword, page(changePassword));
  router.get(PATHS.settingsApiKeys, page(apiKeysList));
  router.post(PATHS.settingsApiKeys, page(createKey));
  router.post(
    `${PATHS.settingsApiKeys}/:keyId/revoke`,
    signedInAction(deps, PATHS.settingsApiKeys, revokeKey),
  );
  router.get(PATHS.settingsConnectedApps, page(connectedAppsList));
  router.post(
    `${PATHS.settingsConnectedApps}/:clientId/revoke`,
    signedInAction(deps, PATHS.settingsConnectedApps, revokeConnectedApp),
  );
  router.get(PATHS.settingsCalendars, page(calendarsList));
  router.post(
    `${PATHS.settingsCalendars}/caldav`,
    signedInAction(deps, PATHS.settingsCalendars, connectCalDavAction),
  );
  router.post(
    `${PATHS.settingsCalendars}/connect/:provider`,
    signedInAction(deps, PATHS.settingsCalendars, startConnectAction),
  );
  router.post(
    `${PATHS.settingsCalendars}/:connectionId`,
    signedInAction(deps, PATHS.settingsCalendars, saveSelectionAction),
  );
  router.post(
    `${PATHS.settingsCalendars}/:connectionId/disconnect`,
    signedInAction(deps, PATHS.settingsCalendars, disconnectAction),
  );
  router.get(PATHS.settingsDeleteAccount, page(deleteAccountForm));
  router.post(PATHS.settingsDeleteAccount, page(deleteAccountAction));
  router.get(PATHS.settingsInvitations, page(invitationsList));
  router.post(`${PATHS.settingsInvitations}/:membershipId/accept`, answerInvitation(deps, 'accept'));
  router.post(`${PATHS.settingsInvitations}/:membershipId/decline`, answerInvitation(deps, 'decline'));
  router.get(PATHS.settingsClients, page(listPage));
  router.post(PATHS.settingsClients, page(create));
  router.get(`${PATHS.settingsClients}/new`, page(newPage));
  router.get(client, page(detailPage));
  router.post(client, page(update));
  router.get(`${client}/edit`, page(editPage));
  router.get(`${client}/delete`, page(deletePage));
  router.post(`${client}/delete`, page(remove));
  router.post(`${client}/secrets`, page(generate));
  router.post(`${client}/secrets/:secretId/revoke`, page(revoke));
  return router;
}
