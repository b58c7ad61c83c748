import type { ReactNode } from 'react';
import type { OnboardingErrorCode, Theme } from './protocol.ts';

export type { OnboardingErrorCode, Theme };

/** What `onError` receives (README "Errors"). */
export interface OnboardingEmbedError {
  code: OnboardingErrorCode;
  message: string;
}

/** Prefill for the sign-up form; ignored when the user signs up with an external identity provider. */
export interface OnboardingEmbedUser {
  email?: string;
  name?: string;
  username?: string;
}

export interface OnboardingEmbedAuthorization {
  /** Must equal one of the OAuth client's registered redirect URIs. Redirect mode navigates here. */
  redirectUri: string;
  /** Scope values, for instance ['EVENT_TYPE_READ']. At least one. */
  scope: string[];
  /** Opaque value returned unchanged; the component rejects messages carrying another one. */
  state: string;
  /** PKCE S256 challenge (BASE64URL(SHA-256(verifier)), 43 characters). Required for public clients. */
  codeChallenge?: string;
}

/** What `onAuthorizationAllowed` receives. `code` is required; `state` and `iss` are extras. */
export interface OnboardingEmbedAuthorizationResult {
  code: string;
  state: string;
  /** The authorization server's issuer (RFC 9207), when the server sent it. */
  iss?: string;
}

export interface OnboardingEmbedProps {
  oAuthClientId: string;
  /** Base URL of the scheduling service (APP_URL), e.g. https://app.example.com. Default http://localhost:3000. */
  host?: string;
  /** Applies to the trigger, the dialog and every page inside it. Default 'light'. */
  theme?: Theme;
  user?: OnboardingEmbedUser;
  authorization: OnboardingEmbedAuthorization;
  /** Callback mode when given: receives the code, the dialog closes, the page does not navigate. */
  onAuthorizationAllowed?: (result: OnboardingEmbedAuthorizationResult) => void;
  /** Called when the user clicks Deny (in either mode); without it, redirect mode navigates with error=access_denied. */
  onAuthorizationDenied?: () => void;
  onError?: (error: OnboardingEmbedError) => void;
  /** Called when the user dismisses the dialog (Escape, the close button, or Cancel inside the flow). */
  onClose?: () => void;
  /** The site's own trigger element; clicking it opens the dialog. Default: a "Continue with Scheduling" button. */
  trigger?: ReactNode;
}
