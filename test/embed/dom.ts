/**
 * A happy-dom browser window registered as the globals React, Testing Library and the component use.
 * Import this module FIRST in a test file (before react-dom or @testing-library/*): React DOM decides
 * at load time whether it runs in a browser.
 *
 * The page is on SITE_ORIGIN; the scheduling service (the component's `host`) is HOST. Iframes get a
 * real (cross-origin) contentWindow, which is what the component compares `event.source` with, but
 * no network: a request from a frame waits until the test calls `finishIframeLoads()` and is then
 * answered with a stub page (so a test decides when an iframe's `load` happens).
 */
import { Window } from 'happy-dom';

export const SITE_ORIGIN = 'https://site.example';
export const HOST = 'https://sched.example';

const pendingLoads: Array<() => void> = [];

/** Answers every request the iframes are waiting on; their `load` events follow. */
export function finishIframeLoads(): void {
  for (const resolve of pendingLoads.splice(0)) resolve();
}

const window: Window = new Window({
  url: `${SITE_ORIGIN}/signup`,
  width: 1280,
  height: 800,
  settings: {
    enableIframePageLoading: true,
    navigation: { disableMainFrameNavigation: true, disableChildPageNavigation: true },
    fetch: {
      interceptor: {
        async beforeAsyncRequest() {
          await new Promise<void>((resolve) => pendingLoads.push(resolve));
          return new window.Response('<!doctype html><title>embed stub</title><p>stub</p>', {
            status: 200,
            headers: { 'content-type': 'text/html; charset=utf-8' },
          });
        },
      },
    },
  },
});

/** Node's own versions of these would not work with happy-dom's nodes and documents. */
const FORCED = ['window', 'document', 'navigator', 'Event', 'EventTarget', 'CustomEvent', 'MessageEvent'];

const target = globalThis as unknown as Record<string, unknown>;
const source = window as unknown as Record<string, unknown>;
for (const key of Object.getOwnPropertyNames(window)) {
  if (key === 'undefined' || key === 'NaN' || key === 'globalThis' || key === 'global') continue;
  if (key in target && !FORCED.includes(key)) continue;
  const value = key === 'window' ? window : source[key];
  Object.defineProperty(target, key, {
    configurable: true,
    writable: true,
    value: typeof value === 'function' && !/^[A-Z]/.test(key) ? value.bind(window) : value,
  });
}
for (const key of ['window', 'document', 'navigator', 'location', 'self']) {
  Object.defineProperty(target, key, {
    configurable: true,
    writable: true,
    value: key === 'window' || key === 'self' ? window : source[key],
  });
}
// React's act() environment: state updates in tests are flushed inside act().
target.IS_REACT_ACT_ENVIRONMENT = true;

export const happyWindow = window;

/** Dispatches a `message` event on the page's window as if `source` had posted it from `origin`. */
export function postFrom(source: unknown, origin: string, data: unknown): void {
  const event = new window.MessageEvent('message', {
    data,
    origin,
    source: source as never,
  });
  window.dispatchEvent(event);
}

/** Closes the happy-dom window (pending iframe loads, timers) at the end of a test file. */
export async function closeWindow(): Promise<void> {
  await window.happyDOM.abort();
  await window.happyDOM.close();
}
