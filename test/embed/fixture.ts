/**
 * Rendering helpers shared by the component tests. Test files import ./dom.ts first, then this.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { createElement } from 'react';
import { HOST, happyWindow, postFrom, SITE_ORIGIN } from './dom.ts';
import { OnboardingEmbed, type OnboardingEmbedError, type OnboardingEmbedProps } from './embed.ts';

export const STATE = 'state-8c1f2e';
export const REDIRECT_URI = `${SITE_ORIGIN}/oauth/callback`;
/** The S256 challenge of RFC 7636 appendix B. */
export const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

export interface Recorded {
  errors: OnboardingEmbedError[];
  allowed: unknown[];
  denied: number;
  closed: number;
}

export function recorder(): Recorded {
  return { errors: [], allowed: [], denied: 0, closed: 0 };
}

/** Valid props in callback mode (onAuthorizationAllowed given) that record every callback. */
export function callbackProps(
  rec: Recorded,
  overrides: Partial<OnboardingEmbedProps> = {},
): OnboardingEmbedProps {
  return {
    oAuthClientId: 'client-abc',
    host: HOST,
    authorization: { redirectUri: REDIRECT_URI, scope: ['PROFILE_READ', 'EVENT_TYPE_READ'], state: STATE },
    onAuthorizationAllowed: (result) => rec.allowed.push(result),
    onAuthorizationDenied: () => {
      rec.denied += 1;
    },
    onError: (error) => rec.errors.push(error),
    onClose: () => {
      rec.closed += 1;
    },
    ...overrides,
  };
}

/** Valid props in redirect mode: no onAuthorizationAllowed, no onAuthorizationDenied. */
export function redirectProps(
  rec: Recorded,
  overrides: Partial<OnboardingEmbedProps> = {},
): OnboardingEmbedProps {
  const props = callbackProps(rec, overrides);
  delete props.onAuthorizationAllowed;
  delete props.onAuthorizationDenied;
  return { ...props, ...overrides };
}

export function embedElement(props: OnboardingEmbedProps) {
  return createElement(OnboardingEmbed, props);
}

export function renderEmbed(props: OnboardingEmbedProps) {
  return render(embedElement(props));
}

export function defaultTrigger(): HTMLElement {
  return screen.getByRole('button', { name: 'Continue with Scheduling' });
}

/** Clicks the default trigger and returns the dialog. */
export function openDialog(): HTMLElement {
  fireEvent.click(defaultTrigger());
  return screen.getByRole('dialog');
}

export function queryDialog(): HTMLElement | null {
  return screen.queryByRole('dialog');
}

export function frame(): HTMLIFrameElement {
  return screen.getByTitle('Sign in to Scheduling and authorize access') as HTMLIFrameElement;
}

/** A message event as the browser would deliver it, inside act() so React settles. */
export function post(source: unknown, data: unknown, origin = HOST): void {
  act(() => postFrom(source, origin, data));
}

/** Replaces window.location.assign for the test; returns the URLs the component navigated to. */
export function captureNavigation(): { urls: string[]; restore: () => void } {
  const urls: string[] = [];
  const location = happyWindow.location;
  Object.defineProperty(location, 'assign', {
    configurable: true,
    writable: true,
    value: (url: string | URL) => urls.push(String(url)),
  });
  return {
    urls,
    restore: () => {
      delete (location as unknown as Record<string, unknown>).assign;
    },
  };
}

/** A short text for an element, for assertion messages (ava would walk a whole DOM node graph). */
export function describeElement(element: Element | null | undefined): string {
  if (!element) return String(element);
  const html = element.outerHTML;
  return html.length > 120 ? `${html.slice(0, 120)}…` : html;
}

/** Asserts identity of two elements without handing DOM nodes to ava's formatter. */
export function sameElement(
  t: { true(value: boolean, message?: string): void },
  actual: Element | null | undefined,
  expected: Element | null | undefined,
  message = '',
): void {
  t.true(
    actual === expected,
    `${message} expected ${describeElement(expected)}, got ${describeElement(actual)}`,
  );
}
