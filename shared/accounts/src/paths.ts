/**
 * Browser pages of the authorization server that account e-mails and the CLI link to (the
 * authorization server's PATHS uses the same values).
 */
export const ACCOUNT_PATHS = {
  verifyEmail: '/auth/verify-email',
  forgotPassword: '/auth/forgot-password',
  resetPassword: '/auth/reset-password',
  settings: '/auth/settings',
  /** The settings profile page: its resend button sends a new verification link. */
  settingsProfile: '/auth/settings/profile',
  settingsSignIn: '/auth/settings/sign-in',
} as const;

/** An absolute link on APP_URL carrying `token`. */
export const tokenLink = (appUrl: string, path: string, token: string): string =>
  `${appUrl}${path}?token=${encodeURIComponent(token)}`;
