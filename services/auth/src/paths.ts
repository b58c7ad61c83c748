import { ACCOUNT_PATHS } from '@sched/accounts/paths';

/** Every path the authorization server answers (the gateway routes /auth/*, /.well-known/*, /v2/auth/oauth2/*). */
export const PATHS = {
  /** The landing page. */
  home: '/',
  authorize: '/auth/oauth2/authorize',
  token: '/v2/auth/oauth2/token',
  revoke: '/v2/auth/oauth2/revoke',
  /** RFC 7662 token introspection (confidential clients: own tokens; resource servers: any). */
  introspect: '/v2/auth/oauth2/introspect',
  /** RFC 7591 dynamic client registration (DCR_ENABLED; public agent clients only). */
  register: '/v2/auth/oauth2/register',
  discovery: '/.well-known/oauth-authorization-server',
  /** OpenID Connect: provider metadata, signing keys, userinfo. */
  openidDiscovery: '/.well-known/openid-configuration',
  /**
   * RFC 9728 metadata of the protected resources: this path for the API
   * (`{BASE_URL}`), with `/mcp` after it for the MCP server. Served here: the gateway sends
   * /.well-known/* to this service.
   */
  protectedResource: '/.well-known/oauth-protected-resource',
  jwks: '/v2/auth/oauth2/jwks',
  userinfo: '/v2/auth/oauth2/userinfo',
  /** Sign-in, sign-up and consent of one authorization request: `${interaction}/:uid[/step]`. */
  interaction: '/auth/interaction',
  verifyEmail: ACCOUNT_PATHS.verifyEmail,
  /** "Forgot password?": the address form (any sign-in page links here). */
  forgotPassword: ACCOUNT_PATHS.forgotPassword,
  /** The reset link of the e-mail (and of `npm run cli -- reset-password`): the new-password form. */
  resetPassword: ACCOUNT_PATHS.resetPassword,
  stylesheet: '/auth/assets/app.css',
  /** The onboarding embed's entry (shared/onboarding-embed/README.md "Protocol" 1). */
  embedOnboarding: '/auth/embed/onboarding',
  /** Everything under here is an embed page (framing allowed for the client's origins). */
  embedPrefix: '/auth/embed/',
  /** The embed pages' one script (postMessage to the embedding page). */
  embedScript: '/auth/embed/assets/embed.js',
  /** Signed-in users' settings (src/settings/): account overview, developer pages. */
  settings: '/auth/settings',
  settingsSignIn: ACCOUNT_PATHS.settingsSignIn,
  /** Sign-up outside an authorization request: signs the new user into the settings. */
  settingsSignUp: '/auth/settings/sign-up',
  settingsSignOut: '/auth/settings/sign-out',
  /** The settings pages' one script: the secret's copy button (optional; pages work without it). */
  settingsScript: '/auth/settings/assets/copy.js',
  /** The signed-in user's pending invitations: accept or decline (the invitation e-mail links here). */
  settingsInvitations: '/auth/settings/invitations',
  /** Self-service (src/settings/): profile (+ resend verification), password, API keys, connected apps, deletion. */
  settingsProfile: '/auth/settings/profile',
  settingsVerificationEmail: '/auth/settings/profile/verification-email',
  settingsPassword: '/auth/settings/password',
  settingsApiKeys: '/auth/settings/api-keys',
  settingsConnectedApps: '/auth/settings/connected-apps',
  settingsDeleteAccount: '/auth/settings/delete-account',
  /** Calendar connections: list, CalDAV form, Google / Microsoft connect, selection, disconnect. */
  settingsCalendars: '/auth/settings/calendars',
  /** The onboarding step's window starts a Google / Microsoft connection here (`/:provider?ticket=`). */
  calendarConnect: '/auth/calendars/connect',
  /** Google / Microsoft send the browser back to `${calendarOAuth}/:provider/callback` (the redirect URI to register). */
  calendarOAuth: '/auth/calendars/oauth',
  /** The profile page's script: filters the time-zone list as one types (optional). */
  settingsTimeZoneScript: '/auth/settings/assets/time-zones.js',
  /** OAuth clients of the signed-in user: list, create, edit, secrets, delete. */
  settingsClients: '/auth/settings/developer/oauth-clients',
  /** Service administrators' review queue of OAuth clients (src/admin/). */
  adminClients: '/auth/admin/oauth-clients',
  /** The admin console (src/admin/, one file per section): users, organizations, every OAuth client, resource servers, the audit log. */
  adminConsole: '/auth/admin',
  adminUsers: '/auth/admin/users',
  adminOrganizations: '/auth/admin/organizations',
  adminAllClients: '/auth/admin/clients',
  adminResourceServers: '/auth/admin/resource-servers',
  adminAudit: '/auth/admin/audit',
} as const;

export type InteractionStep = 'signin' | 'signup' | 'consent' | 'profile' | 'calendar';

export const interactionPath = (uid: string, step?: InteractionStep): string =>
  `${PATHS.interaction}/${encodeURIComponent(uid)}${step ? `/${step}` : ''}`;

/** Browser pages answer errors with HTML; everything else (token, revoke, metadata) with JSON. */
export const isPagePath = (path: string): boolean => path.startsWith('/auth/');
