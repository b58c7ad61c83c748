import { createOutboundFetch, type OutboundFetch } from '@sched/kit/outbound';

/**
 * The outbound fetch every calendar provider request goes through: https only and no special-use
 * address unless OUTBOUND_PRIVATE_NETWORKS=allow, 3 redirects at most, 3 s per request, and a
 * body cap that a week of a busy calendar stays far below.
 */
export function calendarFetch(allowPrivateNetworks: boolean): OutboundFetch {
  return createOutboundFetch({
    allowPrivateNetworks,
    requireHttps: true,
    maxRedirects: 3,
    maxBytes: 5_000_000,
    timeoutMs: 3000,
  });
}
