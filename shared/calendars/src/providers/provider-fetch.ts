import type { Fetch } from './oauth-tokens.ts';

/** Google and Microsoft answer well within this; a slower answer is an outage (contract §16). */
export const PROVIDER_TIMEOUT_MS = 3000;

/**
 * The fetch the OAuth providers' requests go through. Until the outbound module lands
 * (shared/kit/src/outbound.ts), a plain fetch with the 3 s cap; then its fetch with https only,
 * the address rule, 3 redirects at most and a 1 MB answer cap.
 */
export function providerFetch(_options: { allowPrivateNetworks: boolean }): Fetch {
  return (url, init = {}) =>
    fetch(url, {
      ...init,
      signal: init.signal
        ? AbortSignal.any([init.signal, AbortSignal.timeout(PROVIDER_TIMEOUT_MS)])
        : AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
}
