import { createOutboundFetch } from '@sched/kit/outbound';
import type { Fetch } from './oauth-tokens.ts';

/** Google and Microsoft answer well within this; a slower answer is an outage (contract §16). */
export const PROVIDER_TIMEOUT_MS = 3000;

/**
 * The fetch of the OAuth providers' requests outside a stored connection (the connect flow's
 * token exchange and first reads): the outbound module's, https only (unless
 * OUTBOUND_PRIVATE_NETWORKS=allow), the address rule, 3 redirects at most, 1 MB, 3 s. One per
 * process: its agents keep connections to the providers alive.
 */
let shared: { allowPrivateNetworks: boolean; fetch: Fetch } | undefined;

export function providerFetch(options: { allowPrivateNetworks: boolean }): Fetch {
  if (shared?.allowPrivateNetworks !== options.allowPrivateNetworks)
    shared = {
      allowPrivateNetworks: options.allowPrivateNetworks,
      fetch: createOutboundFetch({
        allowPrivateNetworks: options.allowPrivateNetworks,
        requireHttps: true,
        maxRedirects: 3,
        maxBytes: 1_000_000,
        timeoutMs: PROVIDER_TIMEOUT_MS,
      }),
    };
  return shared.fetch;
}
