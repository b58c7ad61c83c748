/** Every path the authorization server answers (the gateway routes /auth/*, /.well-known/*, /v2/auth/oauth2/*). */
export const PATHS = {
  authorize: '/auth/oauth2/authorize',
  token: '/v2/auth/oauth2/token',
  revoke: '/v2/auth/oauth2/revoke',
  discovery: '/.well-known/oauth-authorization-server',
  /** Sign-in, sign-up and consent of one authorization request: `${interaction}/:uid[/step]`. */
  interaction: '/auth/interaction',
  verifyEmail: '/auth/verify-email',
  stylesheet: '/auth/assets/app.css',
} as const;

export const interactionPath = (uid: string, step?: 'signin' | 'signup' | 'consent'): string =>
  `${PATHS.interaction}/${encodeURIComponent(uid)}${step ? `/${step}` : ''}`;

/** Browser pages answer errors with HTML; everything else (token, revoke, metadata) with JSON. */
export const isPagePath = (path: string): boolean => path.startsWith('/auth/');
